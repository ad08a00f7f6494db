lon lat lev time
1 2 3 4
