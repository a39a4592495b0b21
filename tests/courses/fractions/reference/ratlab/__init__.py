"""ratlab: exact fractions."""
