"""Reading submissions (folders, zips, notebooks) into code to stage, without ever executing them."""
