// Unit cube in two physical volumes (7 and 8) for the Gmsh program tests of
// foehn::read_gmsh: MSH 2.2 writes every tet twice (once per group), MSH 4.1 lists both tags
// on the volume entity. Both must read as one tet each with the first tag, 7.
Point(1) = {0, 0, 0, 0.5};
l[] = Extrude {1, 0, 0} { Point{1}; };
s[] = Extrude {0, 1, 0} { Line{l[1]}; };
v[] = Extrude {0, 0, 1} { Surface{s[1]}; };
Physical Volume(7) = {v[1]};
Physical Volume(8) = {v[1]};
Physical Surface(11) = {s[1]};
