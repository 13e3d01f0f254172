// tournament.h -- the header a dice poker student's file includes (seed 000, IA168).
//
// Written from the seed's text only: the organisers' own tournament.h is not public
// here. A student implements "the SOLUTION structure, which consists of 4 items":
// Name, ShortName (7 characters at most), Init (called once, may be omitted) and
// AI(op, b, state, d). Link the student's file with main.cpp (the adapter) and the
// program plays the referee's line protocol (docs/protocols/dice-poker.md).
//
// Registration: define one global SOLUTION, under any name, with brace initialisation:
//
//     static void MyInit() { ... }
//     static int MyAI(int op, int b, int state, int d) { ... }
//     SOLUTION mySolution = {"Jane Doe", "Doe", MyInit, MyAI};
//
// The constructor below records the four items when the object is built (before main),
// so the adapter finds it whatever the variable is called, static or not. Init may be
// NULL or 0 ("you do not have to implement the initialization function at all").
#ifndef TOURNAMENT_H
#define TOURNAMENT_H

// The C library a student most likely used without including it: rand, RAND_MAX,
// printf, memset, sqrt. (No `using namespace std`: it would clash with a student's own
// static names such as `count`.)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct SOLUTION;

// Defined by the adapter (main.cpp); called by SOLUTION's constructor.
void tournament_register_solution(const SOLUTION &solution);

struct SOLUTION {
    const char *Name;       // the strategy's name, e.g. the author's surname(s)
    const char *ShortName;  // at most 7 characters
    void (*Init)();         // once, before the first AI call; may be NULL
    // state: even = first player (small blind), odd = second (big blind);
    // 0/1 decide (d = own die), 2/3 opponent folded, 4/5 showdown (d = opponent's die).
    // Returns 0 to fold, non-zero to bet/call (ignored when state >= 2).
    int (*AI)(int op, int b, int state, int d);

    SOLUTION() : Name(0), ShortName(0), Init(0), AI(0) {}

    // Not explicit, so that `SOLUTION s = {"Name", "Short", Init, AI};` compiles.
    SOLUTION(const char *name, const char *shortName, void (*init)(),
             int (*ai)(int op, int b, int state, int d))
        : Name(name), ShortName(shortName), Init(init), AI(ai) {
        tournament_register_solution(*this);
    }
};

#endif  // TOURNAMENT_H
