/*
 * crowdik_validate --hash (tools/hash.c): hashes of solved bits, to show
 * that a change left the math alone.
 */
#ifndef CROWDIK_TOOLS_HASH_H
#define CROWDIK_TOOLS_HASH_H

/* Runs the hashes; argv[0] is "--hash". Returns the exit status. */
int hash_main(int argc, char **argv);

#endif
