/** Byte units (binary: what a pipe's 64 KiB and a frame's 32 MiB mean). */
export const KIB = 1024;
export const MIB = 1024 * KIB;
export const GIB = 1024 * MIB;
