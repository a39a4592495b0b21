"""Similarity evidence: which submissions are unusually alike (``grader similarity OUT``).

Honest micrograd engines look alike, since the whole class follows the same handout, so a raw
percentage says little. For each assignment, every pair of the class (and every submission against
each corpus folder the instructor names) gets a similarity from code fingerprints (copydetect's
winnowing over Pygments tokens, the release's template subtracted), and is ranked by how unusual
that similarity is *within this class and assignment*. Pairs far above the class's usual similarity
are flagged, with a side-by-side evidence page. This is evidence for a person to review, never a
verdict: nothing here reads or changes a score.

Modules, one concern each:

* :mod:`~grader.similarity.graded_class`: the submissions folder ``grader grade`` recorded in OUT;
* :mod:`~grader.similarity.sources`: each submission's code for an assignment, read as intake reads it,
  never run;
* :mod:`~grader.similarity.normalise`: what a student can add for free (docstrings, annotations, ``pass``, dead
  code, ``if True:``...) blanked in place before fingerprinting, with :mod:`~grader.similarity.parentheses`
  (redundant parentheses) and :mod:`~grader.similarity.syntax` (syntax trees and their positions in the text);
* :mod:`~grader.similarity.fingerprints`: copydetect's tokens and fingerprints, the template as boilerplate,
  matched regions;
* :mod:`~grader.similarity.ranking`: pairwise similarity and the class statistics (robust z-score, percentile,
  flags, histogram);
* :mod:`~grader.similarity.class_pairs`: every pair of a class scored (read, tokenise, fingerprint, compare, rank);
* :mod:`~grader.similarity.similarity_json`: the typed records of ``similarity.json`` (what the class report reads);
* :mod:`~grader.similarity.evidence`: the side-by-side evidence pages;
* :mod:`~grader.similarity.run`: one ``grader similarity`` run, from the scores to the files it writes.

Only :mod:`~grader.similarity.similarity_json` and :mod:`~grader.similarity.graded_class` are light: the report and
``grader grade`` import them; the rest imports copydetect (numpy, Pygments, matplotlib), but for the normaliser's
three modules, which need only the standard library.
"""
