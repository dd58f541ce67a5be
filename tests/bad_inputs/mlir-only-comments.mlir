// only comments

// nothing else
