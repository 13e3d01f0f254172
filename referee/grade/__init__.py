"""Grading a class's submissions (issue 13): unpack, build, check, qualify, compete, report."""
