// Box [0,1] x [0,2] x [0,3] for the Gmsh program tests of foehn::read_gmsh. Built-in
// kernel, so any Gmsh build meshes it (no OpenCASCADE needed). Volume 6; face areas
// 6 (x = const), 3 (y = const), 2 (z = const).
h = 0.4;
Point(1) = {0, 0, 0, h}; Point(2) = {1, 0, 0, h}; Point(3) = {1, 2, 0, h}; Point(4) = {0, 2, 0, h};
Point(5) = {0, 0, 3, h}; Point(6) = {1, 0, 3, h}; Point(7) = {1, 2, 3, h}; Point(8) = {0, 2, 3, h};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Line(5) = {5, 6}; Line(6) = {6, 7}; Line(7) = {7, 8}; Line(8) = {8, 5};
Line(9) = {1, 5}; Line(10) = {2, 6}; Line(11) = {3, 7}; Line(12) = {4, 8};
Curve Loop(1) = {1, 2, 3, 4};     Plane Surface(1) = {1};  // z = 0
Curve Loop(2) = {5, 6, 7, 8};     Plane Surface(2) = {2};  // z = 3
Curve Loop(3) = {1, 10, -5, -9};  Plane Surface(3) = {3};  // y = 0
Curve Loop(4) = {3, 12, -7, -11}; Plane Surface(4) = {4};  // y = 2
Curve Loop(5) = {4, 9, -8, -12};  Plane Surface(5) = {5};  // x = 0
Curve Loop(6) = {2, 11, -6, -10}; Plane Surface(6) = {6};  // x = 1
Surface Loop(1) = {1, 2, 3, 4, 5, 6};
Volume(1) = {1};

Physical Surface("x_min", 101) = {5};
Physical Surface("x_max", 102) = {6};
Physical Surface("y_min", 103) = {3};
Physical Surface("y_max", 104) = {4};
Physical Surface("z_min", 105) = {1};
Physical Surface("z_max", 106) = {2};
Physical Volume("box", 7) = {1};
