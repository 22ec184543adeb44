/* Sanitizer builds only (cmake/MlckptSanitizers.cmake): every program keeps
 * the shared objects it opened with dlopen() until it exits.
 *
 * Open MPI unloads its plugins (mca_*.so) in MPI_Finalize, before
 * LeakSanitizer looks for leaks at exit. What a plugin keeps until exit
 * then looks leaked, allocated from "<unknown module>", which no
 * suppression can name, unless every allocation's stack is unwound the slow
 * way, which makes a single-rank launch four times slower. Kept loaded, the
 * plugins' memory still points at what they keep, and their frames carry
 * their names: LeakSanitizer finds this project's leaks, not Open MPI's.
 *
 * Defined in the program (and exported, whatever the build's default
 * visibility), this dlclose() takes precedence over the C library's for
 * every library of the process. */
__attribute__((visibility("default"))) int dlclose(void* handle) {
    (void)handle;
    return 0;
}
