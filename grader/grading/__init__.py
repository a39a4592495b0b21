"""Grading a class: the plan (manifests), the judges that run it, the queue they share, shards and progress."""
