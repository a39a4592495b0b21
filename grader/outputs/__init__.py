"""What grading produces and who reads it: results.json and feedback, the gradebook, item analysis,
JUnit and GitHub formats, the class report; every student text made inert first (:mod:`grader.inert`)."""
