//===- Plain.cpp - The benchmark's uninstrumented function ----------------===//

#include "Subjects.h"

int plainCall(int X) { return X + 1; }
