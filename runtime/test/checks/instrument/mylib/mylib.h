// The instrumented test library's interface: nothing of apistamp in it.
#ifndef MYLIB_H
#define MYLIB_H

int mylib_f(int X);
int mylib_exported_f(int X);

#endif
