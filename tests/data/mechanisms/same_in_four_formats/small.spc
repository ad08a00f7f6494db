{ small.spc: species of the four-format test mechanism (KPP syntax: NAME = composition;). }
#DEFVAR
O    = O;
O3   = 3O;
NO   = N + O;
NO2  = N + 2O;
OH   = O + H;
HO2  = H + 2O;
HNO3 = H + N + 3O;
#DEFFIX
M    = IGNORE;
O2   = 2O;
