/* hostlog.c: a module that keeps files open across frames, as a homebrew program logging to
 * host: does: a log file written a line at a time (opened O_WRONLY | O_CREAT | O_TRUNC), a
 * second file opened for reading and writing, read back and extended, and rom0:ROMVER read a
 * few bytes at a time, with 20 ms waits between steps. A save state taken while they are open
 * and loaded into a new run must carry on with the same files at the same positions: the files
 * that run leaves, and its output, are the uninterrupted run's (crates/piney/tests/
 * save_states.rs). Expected output (hostlog.stdout): the steps' results, worked out from the
 * calls (each write returns its count; reads of ROMVER give "0160AC20020207\n" in pieces). */
#include "irx.h"

IRX_ID("hostlog", 1, 1);

int _start(int argc, char **argv)
{
    char line[32], buf[8];
    int log, data, rom, i, r;
    (void)argc;
    (void)argv;

    log = io_open("host:hostlog.txt", O_WRONLY | O_CREAT | O_TRUNC);
    data = io_open("host:hostlog.dat", O_RDWR | O_CREAT | O_TRUNC);
    rom = io_open("rom0:ROMVER", O_RDONLY);
    printf("open -> %d %d %d\n", log, data, rom);
    for (i = 0; i < 8; i++) {
        sprintf(line, "step %d\n", i);
        r = io_write(log, line, strlen(line));
        io_write(data, "ab", 2);
        printf("step %d: write %d, data at %d", i, r, io_lseek(data, 0, SEEK_CUR));
        r = io_read(rom, buf, 2);
        buf[r > 0 ? r : 0] = 0;
        printf(", rom %d \"%s\"\n", r, buf[0] == '\n' ? "\\n" : buf);
        DelayThread(20000);
    }
    io_lseek(data, 1, SEEK_SET);
    r = io_read(data, buf, 4);
    buf[r > 0 ? r : 0] = 0;
    printf("data read back %d \"%s\"\n", r, buf);
    printf("close -> %d %d %d\n", io_close(log), io_close(data), io_close(rom));
    return 1;
}
