/* ioman.c: files on host: through ioman's own calls (the library every IOP file call goes
 * through), and ioman's errors.
 *
 * The runner points host: at a fresh, empty folder. Expected results (ps2sdk ioman.c / iomanX.c,
 * io_common.h, errno.h):
 *   - fds 0, 1 (and piney's 2, stderr) are the tty's, so the first file is fd 3; a freed fd is
 *     the next one handed out;
 *   - write returns the count; read returns the count, 0 at the end; lseek the new position;
 *   - read of a file opened O_WRONLY and write of one opened O_RDONLY: -EBADF (9), checked by
 *     ioman before the device;
 *   - lseek with whence 3: ioman writes "invalid lseek arg\r\n" to fd 1 and answers -EINVAL (22);
 *   - close frees the file: a second close is -EBADF, as is any fd < 0, >= 32, or free;
 *   - a missing file: -ENOENT (2); an unknown device or a path without a colon: -ENODEV (19);
 *   - 32 files in all: with 0..2 and 29 more open, open and the path calls (which take a file
 *     for the call) answer -EMFILE (24);
 *   - getstat of host: files and folders: FIO_SO_IFREG (0x10) / FIO_SO_IFDIR (0x20) with the
 *     rwx bits (4 2 1) the host allows (a file we wrote: rw, 0x16; a folder: 0x27), the size;
 *   - dread on host: gives the folder's entries (piney's host device: sorted, without . and ..),
 *     each with the name's length as the result, then 0; dread of a file's fd is -EBADF;
 *   - iomanx's extended calls (rename, chdir, lseek64, devctl...) on a device whose type lacks
 *     IOP_DT_FSEXT: -EUNSUP (48), after the usual -ENODEV / -EBADF; rename with the new name on
 *     another device: -EXDEV (18). */
#include "irx.h"

IRX_ID("ioman", 1, 1);

static const char text[] = "hello, ioman!\n";

static void show_stat(const char *what, int r, io_stat_t *st)
{
    if (r == 0)
        printf("getstat %s -> 0: mode 0x%x size %d\n", what, st->mode, st->size);
    else
        printf("getstat %s -> %d\n", what, r);
}

int _start(int argc, char **argv)
{
    char buf[64];
    io_stat_t st;
    io_dirent_t de;
    int fd, r, i, fds[32];
    (void)argc;
    (void)argv;

    fd = io_open("host:ioman.tmp", O_WRONLY | O_CREAT | O_TRUNC);
    printf("open for writing -> %d\n", fd);
    printf("write -> %d\n", io_write(fd, text, 14));
    printf("read of a write-only file -> %d\n", io_read(fd, buf, 4));
    printf("lseek end -> %d\n", io_lseek(fd, 0, SEEK_END));
    printf("lseek 7 -> %d\n", io_lseek(fd, 7, SEEK_SET));
    r = io_lseek(fd, 0, 3);
    printf("lseek whence 3 -> %d\n", r);
    printf("close -> %d\n", io_close(fd));
    printf("close again -> %d\n", io_close(fd));

    fd = io_open("host:/ioman.tmp", O_RDONLY);
    printf("open for reading -> %d\n", fd);
    for (i = 0; i < (int)sizeof(buf); i++)
        buf[i] = 0;
    r = io_read(fd, buf, sizeof(buf));
    printf("read -> %d: %s", r, buf);
    printf("read at the end -> %d\n", io_read(fd, buf, sizeof(buf)));
    printf("lseek -5 from the end -> %d\n", io_lseek(fd, -5, SEEK_END));
    for (i = 0; i < (int)sizeof(buf); i++)
        buf[i] = 0;
    r = io_read(fd, buf, 5);
    printf("read 5 -> %d: %s", r, buf);
    printf("write to a read-only file -> %d\n", io_write(fd, "x", 1));
    printf("dread of a file -> %d\n", io_dread(fd, &de));
    printf("close -> %d\n", io_close(fd));

    r = io_getstat("host:ioman.tmp", &st);
    show_stat("of the file", r, &st);

    printf("mkdir -> %d\n", io_mkdir("host:iomandir"));
    fd = io_open("host:iomandir/b.txt", O_WRONLY | O_CREAT);
    r = io_write(fd, "bb", 2);
    printf("open b.txt -> %d, write -> %d, close -> %d\n", fd, r, io_close(fd));
    fd = io_open("host:iomandir/a.txt", O_WRONLY | O_CREAT);
    r = io_write(fd, "a", 1);
    printf("open a.txt -> %d, write -> %d, close -> %d\n", fd, r, io_close(fd));
    r = io_getstat("host:iomandir", &st);
    printf("getstat of the folder -> %d: mode 0x%x\n", r, st.mode);
    fd = io_dopen("host:iomandir", 0);
    printf("dopen -> %d\n", fd);
    for (i = 0; i < 4; i++) {
        r = io_dread(fd, &de);
        if (r <= 0) {
            printf("dread -> %d\n", r);
            break;
        }
        printf("dread -> %d: %s mode 0x%x size %d\n", r, de.name, de.stat.mode, de.stat.size);
    }
    printf("dclose -> %d\n", io_dclose(fd));
    printf("dclose again -> %d\n", io_dclose(fd));

    printf("remove a.txt -> %d\n", io_remove("host:iomandir/a.txt"));
    printf("remove b.txt -> %d\n", io_remove("host:iomandir/b.txt"));
    printf("rmdir -> %d\n", io_rmdir("host:iomandir"));
    printf("remove the file -> %d\n", io_remove("host:ioman.tmp"));

    /* Errors. */
    printf("open a missing file -> %d\n", io_open("host:ioman.tmp", O_RDONLY));
    r = io_getstat("host:ioman.tmp", &st);
    show_stat("of a missing file", r, &st);
    printf("remove a missing file -> %d\n", io_remove("host:ioman.tmp"));
    printf("open on no device -> %d\n", io_open("nodev0:x", O_RDONLY));
    printf("open without a colon -> %d\n", io_open("ioman.tmp", O_RDONLY));
    printf("close 99 -> %d\n", io_close(99));
    printf("close -1 -> %d\n", io_close(-1));
    printf("close 20 (free) -> %d\n", io_close(20));
    printf("read -1 -> %d\n", io_read(-1, buf, 1));
    printf("lseek 40 -> %d\n", io_lseek(40, 0, SEEK_SET));
    printf("write 32 -> %d\n", io_write(32, "x", 1));

    /* The tty: fd 1 writes, fd 0 reads nothing. */
    printf("write to fd 1 -> %d\n", io_write(1, "to the tty\n", 11));
    printf("read from fd 0 -> %d\n", io_read(0, buf, 4));

    /* 32 files: 3..31 are the 29 left. */
    for (i = 3; i < 32; i++)
        fds[i] = io_open("tty:", O_WRONLY);
    printf("29 more files: %d .. %d\n", fds[3], fds[31]);
    printf("a 33rd -> %d\n", io_open("tty:", O_WRONLY));
    printf("getstat with none free -> %d\n", io_getstat("host:x", &st));
    printf("mkdir with none free -> %d\n", io_mkdir("host:x"));
    printf("close 17 -> %d\n", io_close(17));
    printf("the next open -> %d\n", io_open("tty:", O_WRONLY));
    r = 0;
    for (i = 3; i < 32; i++)
        r += io_close(i) == 0;
    printf("closed %d\n", r);

    /* iomanx's extended calls: a device without them (host:) answers -EUNSUP (48); rename
       needs both names on one device (-EXDEV, 18). */
    printf("iomanX_devctl -> %d\n", iomanX_devctl("host:", 1, NULL, 0, NULL, 0));
    printf("iomanX_rename across devices -> %d\n", iomanX_rename("host:a", "tty:b"));
    printf("iomanX_rename -> %d\n", iomanX_rename("host:a", "host0:b"));
    printf("iomanX_chdir on no device -> %d\n", iomanX_chdir("nodev:x"));
    printf("iomanX_lseek64 -> %d\n", (int)iomanX_lseek64(1, 0, SEEK_SET));
    printf("iomanX_lseek64 of a bad fd -> %d\n", (int)iomanX_lseek64(40, 0, SEEK_SET));
    printf("-- done\n");
    return NO_RESIDENT_END;
}
