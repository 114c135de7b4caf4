/* iodriver.c: a device driver of our own, "ramd" (a RAM disk of four 256-byte files, no
 * folders), registered with AddDrv and used through ioman's and iomanx's calls.
 *
 * Expected results (ps2sdk ioman.c / iomanX.c, ioman.h, io_common.h, iox_stat.h, errno.h):
 *   - AddDrv calls the driver's init(device) before it returns 0; a driver whose init returns
 *     < 0 is not added (-1) and its name stays unknown (-ENODEV, 19);
 *   - open("ramdN:rest", flags) takes a free file (fds 0..2 are the tty's: 3 first), fills its
 *     iop_file_t (mode = flags, unit = N, device) and calls the driver's open(f, "rest", flags);
 *     a result >= 0 gives the fd, a negative one is passed on and frees the file;
 *   - read of a file opened O_WRONLY is -EBADF (9) and lseek with whence 3 is -EINVAL (22,
 *     after "invalid lseek arg\r\n" on fd 1) without the driver being called; read, write,
 *     lseek, ioctl and dread pass the driver's result; close frees the file (again: -EBADF);
 *   - getstat, remove, mkdir, chstat and format take a file for the call (unit set, mode 0) and
 *     pass the driver's result; dopen's file has mode 0;
 *   - DelDrv calls deinit and answers 0; -1 for a name it does not have; a deleted device's
 *     paths are -ENODEV; DelDrv of the native "rom" and AddDrv of a driver named "rom" sends
 *     rom0: paths to the driver;
 *   - iomanx: a driver without IOP_DT_FSEXT is called as ioman calls it; getstat and dread turn
 *     its mode FIO_SO_IFREG|IROTH|IWOTH (0x16) into FIO_S_IFREG with r and w for all (0x21b6);
 *     dopen's file has mode O_DIROPEN (8), and close calls dclose for it; close answers the fd
 *     and remove 0 on success; dread of a file open() opened is -EBADF; GetDevType is the
 *     device's type.
 *
 * Started with the argument "serve" it only adds ramd and stays resident, for a test of the EE's
 * FILEIO calls reaching the driver (crates/piney-iop/tests/fileio_driver.rs). */
#include "irx.h"

IRX_ID("iodriver", 1, 1);

#define NFILES 4
#define FSIZE  256

struct rfile {
    int used;
    int size;
    char name[32];
    u8 data[FSIZE];
};

struct ropen {
    int used;
    struct rfile *file; /* NULL for a dopen */
    int pos;            /* a file's position; a listing's next slot */
};

static struct rfile files[NFILES];
static struct ropen opens[8];

static struct rfile *find(const char *name)
{
    int i;
    while (*name == '/')
        name++;
    for (i = 0; i < NFILES; i++)
        if (files[i].used && strcmp(files[i].name, name) == 0)
            return &files[i];
    return NULL;
}

static struct ropen *new_open(void)
{
    int i;
    for (i = 0; i < 8; i++)
        if (!opens[i].used) {
            opens[i].used = 1;
            opens[i].file = NULL;
            opens[i].pos = 0;
            return &opens[i];
        }
    return NULL;
}

static int ramd_init(iop_device_t *d)
{
    printf("  ramd: init %s (%s)\n", d->name, d->desc);
    return 0;
}

static int ramd_deinit(iop_device_t *d)
{
    printf("  ramd: deinit %s\n", d->name);
    return 0;
}

static int ramd_format(iop_file_t *f)
{
    int i;
    printf("  ramd: format unit %d\n", f->unit);
    for (i = 0; i < NFILES; i++)
        files[i].used = 0;
    return 0;
}

static int ramd_open(iop_file_t *f, const char *name, int flags)
{
    struct rfile *rf;
    struct ropen *o;
    int i;

    printf("  ramd: open \"%s\" unit %d flags 0x%x mode 0x%x on %s\n", name, f->unit, flags,
           f->mode, f->device->name);
    rf = find(name);
    if (!rf && (flags & O_CREAT)) {
        for (i = 0; i < NFILES && files[i].used; i++)
            ;
        if (i == NFILES)
            return -ENOSPC;
        rf = &files[i];
        rf->used = 1;
        rf->size = 0;
        while (*name == '/')
            name++;
        strncpy(rf->name, name, sizeof(rf->name) - 1);
        rf->name[sizeof(rf->name) - 1] = 0;
    }
    if (!rf)
        return -ENOENT;
    o = new_open();
    if (!o)
        return -EMFILE;
    if (flags & O_TRUNC)
        rf->size = 0;
    o->file = rf;
    f->privdata = o;
    return 0;
}

static int ramd_close(iop_file_t *f)
{
    struct ropen *o = f->privdata;
    printf("  ramd: close %s\n", o->file->name);
    o->used = 0;
    return 0;
}

static int ramd_read(iop_file_t *f, void *buffer, int size)
{
    struct ropen *o = f->privdata;
    int n = o->file->size - o->pos;
    if (n > size)
        n = size;
    if (n < 0)
        n = 0;
    memcpy(buffer, o->file->data + o->pos, n);
    o->pos += n;
    return n;
}

static int ramd_write(iop_file_t *f, void *buffer, int size)
{
    struct ropen *o = f->privdata;
    int n = FSIZE - o->pos;
    if (n > size)
        n = size;
    memcpy(o->file->data + o->pos, buffer, n);
    o->pos += n;
    if (o->pos > o->file->size)
        o->file->size = o->pos;
    return n;
}

static int ramd_lseek(iop_file_t *f, int offset, int whence)
{
    struct ropen *o = f->privdata;
    int to = offset;
    if (whence == SEEK_CUR)
        to += o->pos;
    else if (whence == SEEK_END)
        to += o->file->size;
    if (to < 0 || to > FSIZE)
        return -EINVAL;
    o->pos = to;
    return to;
}

static int ramd_ioctl(iop_file_t *f, int cmd, void *arg)
{
    struct ropen *o = f->privdata;
    printf("  ramd: ioctl 0x%x\n", cmd);
    *(int *)arg = o->file->size;
    return 0x55;
}

/* remove answers how many files went (1), to show what ioman and iomanx do with it. */
static int ramd_remove(iop_file_t *f, const char *name)
{
    struct rfile *rf = find(name);
    printf("  ramd: remove \"%s\" unit %d mode 0x%x\n", name, f->unit, f->mode);
    if (!rf)
        return -ENOENT;
    rf->used = 0;
    return 1;
}

static int ramd_mkdir(iop_file_t *f, const char *path)
{
    (void)f;
    printf("  ramd: mkdir \"%s\": no folders here\n", path);
    return -EIO;
}

static int ramd_rmdir(iop_file_t *f, const char *path)
{
    (void)f;
    (void)path;
    return -EIO;
}

static int ramd_dopen(iop_file_t *f, const char *path)
{
    struct ropen *o;
    printf("  ramd: dopen \"%s\" unit %d mode 0x%x\n", path, f->unit, f->mode);
    o = new_open();
    if (!o)
        return -EMFILE;
    f->privdata = o;
    return 0;
}

static int ramd_dclose(iop_file_t *f)
{
    struct ropen *o = f->privdata;
    printf("  ramd: dclose\n");
    o->used = 0;
    return 0;
}

static void fill_stat(io_stat_t *st, struct rfile *rf)
{
    memset(st, 0, sizeof(*st));
    st->mode = FIO_SO_IFREG | FIO_SO_IROTH | FIO_SO_IWOTH;
    st->size = rf->size;
}

static int ramd_dread(iop_file_t *f, io_dirent_t *de)
{
    struct ropen *o = f->privdata;
    while (o->pos < NFILES && !files[o->pos].used)
        o->pos++;
    if (o->pos >= NFILES)
        return 0;
    fill_stat(&de->stat, &files[o->pos]);
    strcpy(de->name, files[o->pos].name);
    o->pos++;
    return 1;
}

static int ramd_getstat(iop_file_t *f, const char *name, io_stat_t *st)
{
    struct rfile *rf = find(name);
    (void)f;
    if (!rf)
        return -ENOENT;
    fill_stat(st, rf);
    return 0;
}

static int ramd_chstat(iop_file_t *f, const char *name, io_stat_t *st, unsigned int mask)
{
    printf("  ramd: chstat \"%s\" unit %d mode 0x%x mask 0x%x\n", name, f->unit, st->mode, mask);
    return 0;
}

static iop_device_ops_t ramd_ops = {
    ramd_init,  ramd_deinit, ramd_format, ramd_open,  ramd_close,  ramd_read,
    ramd_write, ramd_lseek,  ramd_ioctl,  ramd_remove, ramd_mkdir, ramd_rmdir,
    ramd_dopen, ramd_dclose, ramd_dread,  ramd_getstat, ramd_chstat,
};

static iop_device_t ramd = { "ramd", IOP_DT_FS, 1, "RAM disk", &ramd_ops };
/* The same driver standing in for the ROM's file system. */
static iop_device_t romd = { "rom", IOP_DT_FS, 1, "ROM stand-in", &ramd_ops };

static int bad_init(iop_device_t *d)
{
    printf("  bad: init %s fails\n", d->name);
    return -1;
}

static iop_device_ops_t bad_ops = {
    bad_init,  ramd_deinit, ramd_format, ramd_open,  ramd_close,  ramd_read,
    ramd_write, ramd_lseek, ramd_ioctl,  ramd_remove, ramd_mkdir, ramd_rmdir,
    ramd_dopen, ramd_dclose, ramd_dread, ramd_getstat, ramd_chstat,
};

static iop_device_t bad = { "bad", IOP_DT_FS, 1, "init fails", &bad_ops };

int _start(int argc, char **argv)
{
    char buf[64];
    io_stat_t st;
    io_dirent_t de;
    iox_stat_t xst;
    iox_dirent_t xde;
    int fd, fd2, r, i, size;

    if (argc > 1 && strcmp(argv[1], "serve") == 0) {
        r = io_AddDrv(&ramd);
        printf("iodriver: serving ramd: AddDrv -> %d\n", r);
        return RESIDENT_END;
    }

    r = io_AddDrv(&ramd);
    printf("AddDrv ramd -> %d\n", r);

    fd = io_open("ramd0:hello", O_WRONLY | O_CREAT);
    printf("open -> %d\n", fd);
    printf("write -> %d\n", io_write(fd, "hello, driver", 13));
    printf("read of a write-only file -> %d\n", io_read(fd, buf, 4));
    r = io_lseek(fd, 0, 3);
    printf("lseek whence 3 -> %d\n", r);
    printf("lseek 7 -> %d\n", io_lseek(fd, 7, SEEK_SET));
    printf("write -> %d\n", io_write(fd, "DRIVER", 6));
    r = io_close(fd);
    printf("close -> %d\n", r);
    printf("close again -> %d\n", io_close(fd));

    fd = io_open("ramd12:/hello", O_RDONLY);
    printf("open -> %d\n", fd);
    for (i = 0; i < (int)sizeof(buf); i++)
        buf[i] = 0;
    r = io_read(fd, buf, sizeof(buf));
    printf("read -> %d: %s\n", r, buf);
    printf("read at the end -> %d\n", io_read(fd, buf, sizeof(buf)));
    printf("lseek -6 from the end -> %d\n", io_lseek(fd, -6, SEEK_END));
    for (i = 0; i < (int)sizeof(buf); i++)
        buf[i] = 0;
    r = io_read(fd, buf, 3);
    printf("read 3 -> %d: %s\n", r, buf);
    size = 0;
    r = io_ioctl(fd, 0x1234, &size);
    printf("ioctl -> %d, size %d\n", r, size);

    r = io_open("ramd:nothing", O_RDONLY);
    printf("open a missing file -> %d\n", r);
    fd2 = io_open("ramd:second", O_RDWR | O_CREAT);
    printf("open -> %d\n", fd2);
    printf("write -> %d\n", io_write(fd2, "2", 1));

    r = io_getstat("ramd:hello", &st);
    printf("getstat -> %d: mode 0x%x size %d\n", r, st.mode, st.size);
    printf("getstat of a missing file -> %d\n", io_getstat("ramd:nothing", &st));
    fd = io_dopen("ramd:", 0);
    printf("dopen -> %d\n", fd);
    for (i = 0; i < 4; i++) {
        r = io_dread(fd, &de);
        if (r <= 0) {
            printf("dread -> %d\n", r);
            break;
        }
        printf("dread -> %d: %s mode 0x%x size %d\n", r, de.name, de.stat.mode, de.stat.size);
    }
    r = io_dclose(fd);
    printf("dclose -> %d\n", r);
    st.mode = 0x12;
    r = io_chstat("ramd3:hello", &st, 1);
    printf("chstat -> %d\n", r);
    r = io_remove("ramd:second");
    printf("remove -> %d\n", r);
    printf("getstat of it -> %d\n", io_getstat("ramd:second", &st));
    r = io_mkdir("ramd:dir");
    printf("mkdir -> %d\n", r);
    r = io_format("ramd1:");
    printf("format -> %d\n", r);
    printf("getstat after format -> %d\n", io_getstat("ramd:hello", &st));
    r = io_close(3);
    printf("close 3 -> %d\n", r);
    r = io_close(4);
    printf("close 4 -> %d\n", r);

    /* iomanx on the same device. */
    fd = iomanX_open("ramd:x", O_WRONLY | O_CREAT, 0644);
    printf("iomanX_open -> %d\n", fd);
    printf("iomanX_write -> %d\n", iomanX_write(fd, "xxxx", 4));
    printf("iomanX_GetDevType -> 0x%x\n", iomanX_GetDevType(fd));
    printf("iomanX_dread of a file -> %d\n", iomanX_dread(fd, &xde));
    r = iomanX_close(fd);
    printf("iomanX_close -> %d\n", r);
    r = iomanX_getstat("ramd:x", &xst);
    printf("iomanX_getstat -> %d: mode 0x%x size %d\n", r, xst.mode, xst.size);
    fd = iomanX_dopen("ramd:");
    printf("iomanX_dopen -> %d\n", fd);
    r = iomanX_dread(fd, &xde);
    printf("iomanX_dread -> %d: %s mode 0x%x size %d\n", r, xde.name, xde.stat.mode,
           xde.stat.size);
    printf("iomanX_dread -> %d\n", iomanX_dread(fd, &xde));
    r = iomanX_close(fd);
    printf("iomanX_close -> %d\n", r);
    r = iomanX_remove("ramd:x");
    printf("iomanX_remove -> %d\n", r);
    printf("GetDevType of the tty -> 0x%x, of fd 20 -> %d\n", iomanX_GetDevType(1),
           (int)iomanX_GetDevType(20));

    /* A guest "rom" in the native one's place. */
    printf("DelDrv rom -> %d\n", io_DelDrv("rom"));
    printf("open rom0:ROMVER -> %d\n", io_open("rom0:ROMVER", O_RDONLY));
    r = io_AddDrv(&romd);
    printf("AddDrv rom -> %d\n", r);
    r = io_open("rom0:ROMVER", O_RDONLY);
    printf("open rom0:ROMVER -> %d\n", r);

    r = io_AddDrv(&bad);
    printf("AddDrv bad -> %d\n", r);
    printf("open bad:x -> %d\n", io_open("bad:x", O_RDONLY));

    r = io_DelDrv("ramd");
    printf("DelDrv ramd -> %d\n", r);
    printf("open after DelDrv -> %d\n", io_open("ramd:hello", O_RDONLY));
    printf("DelDrv ramd again -> %d\n", io_DelDrv("ramd"));
    r = io_DelDrv("rom");
    printf("DelDrv rom -> %d\n", r);
    printf("-- done\n");
    return NO_RESIDENT_END;
}
