//! Plain values shared by both kinds of card: timestamps as the card stores them, directory
//! entries as `mcGetDir` reports them, open/seek/set-info flags with the console's numeric
//! values, and the entry mode bits.
//!
//! Contract: every numeric value here is the one MCMAN/libmc use on the console (sources named
//! at each definition); nothing here touches the host.

use std::ops::BitOr;

/// Date and time as the card stores it (`sceMcStDateTime`, 8 bytes: a reserved byte, sec, min,
/// hour, day, month, then a little-endian u16 year; ps2sdk `common/include/libmc-common.h`).
///
/// A real console writes Japan Standard Time (UTC+9) read from the CDVD clock; piney passes its
/// own emulated time. Values are kept as they are: the card does not validate them.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Timestamp {
    /// Year, four digits (e.g. 2004).
    pub year: u16,
    /// Month, 1..=12.
    pub month: u8,
    /// Day of the month, 1..=31.
    pub day: u8,
    /// Hour, 0..=23.
    pub hour: u8,
    /// Minute, 0..=59.
    pub min: u8,
    /// Second, 0..=59.
    pub sec: u8,
}

impl Timestamp {
    /// The date MCMAN writes when the CDVD clock cannot be read: 2000-03-04 00:00:00
    /// (ps2sdk `iop/memorycard/mcman/src/main.c`, `mcman_getmcrtime`). Used here as the default
    /// for host files whose modification time is unknown.
    pub const RTC_FALLBACK: Timestamp = Timestamp::new(2000, 3, 4, 0, 0, 0);

    /// A timestamp from its fields, most significant first.
    pub const fn new(year: u16, month: u8, day: u8, hour: u8, min: u8, sec: u8) -> Self {
        Timestamp {
            year,
            month,
            day,
            hour,
            min,
            sec,
        }
    }

    /// The 8 bytes the card stores: reserved (0), sec, min, hour, day, month, year (LE u16).
    pub const fn to_bytes(self) -> [u8; 8] {
        let y = self.year.to_le_bytes();
        [
            0, self.sec, self.min, self.hour, self.day, self.month, y[0], y[1],
        ]
    }

    /// Reads the card's 8-byte form; the reserved first byte is ignored.
    pub const fn from_bytes(b: [u8; 8]) -> Self {
        Timestamp {
            sec: b[1],
            min: b[2],
            hour: b[3],
            day: b[4],
            month: b[5],
            year: u16::from_le_bytes([b[6], b[7]]),
        }
    }

    /// The JST (UTC+9) card time of a Unix time in seconds, as a console would record it.
    /// Times before 1970 give [`Timestamp::RTC_FALLBACK`].
    pub fn from_unix_jst(unix_secs: i64) -> Self {
        // The console's clock runs in JST: UTC + 9 hours.
        let t = unix_secs.saturating_add(9 * 3600);
        if t < 0 {
            return Self::RTC_FALLBACK;
        }
        let days = t / 86_400;
        let rem = t % 86_400;
        let (y, m, d) = civil_from_days(days);
        let Ok(year) = u16::try_from(y) else {
            return Self::RTC_FALLBACK;
        };
        Timestamp {
            year,
            month: m as u8,
            day: d as u8,
            hour: (rem / 3600) as u8,
            min: (rem / 60 % 60) as u8,
            sec: (rem % 60) as u8,
        }
    }
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (days >= 0), by the usual
/// era/day-of-era decomposition (400-year eras of 146,097 days, years starting in March).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Mode bits of a directory entry (`sceMcFileAttr*` in ps2sdk `common/include/libmc-common.h`;
/// mymc's "ps2mcfs" document names the same bits DF_*).
pub mod mode {
    /// Readable.
    pub const READ: u16 = 0x0001;
    /// Writable.
    pub const WRITE: u16 = 0x0002;
    /// Executable.
    pub const EXECUTE: u16 = 0x0004;
    /// Copy protected.
    pub const PROTECTED: u16 = 0x0008;
    /// A regular file.
    pub const FILE: u16 = 0x0010;
    /// A directory.
    pub const DIR: u16 = 0x0020;
    /// Used internally by MCMAN to create directories (the open flag's value).
    pub const CREATE_DIR: u16 = 0x0040;
    /// Set when a written file was closed properly; cleared while it is being written.
    pub const CLOSED: u16 = 0x0080;
    /// Same value as the open flag O_CREAT.
    pub const CREATE_FILE: u16 = 0x0200;
    /// Set on every entry MCMAN creates ("0400").
    pub const BIT_0400: u16 = 0x0400;
    /// PocketStation application.
    pub const POCKETSTATION: u16 = 0x0800;
    /// PlayStation (PS1) data.
    pub const PS1: u16 = 0x1000;
    /// Hidden (from games; the browser still shows it).
    pub const HIDDEN: u16 = 0x2000;
    /// The entry is in use; cleared by delete.
    pub const EXISTS: u16 = 0x8000;

    /// Mode MCMAN gives a new file: R|W|X|FILE|0400|EXISTS (ps2mc_fio.c, `mcman_open2`).
    pub const NEW_FILE: u16 = READ | WRITE | EXECUTE | FILE | BIT_0400 | EXISTS; // 0x8417
    /// Mode MCMAN gives a new directory and its '.'/'..' entries: R|W|X|DIR|0400|EXISTS.
    pub const NEW_DIR: u16 = READ | WRITE | EXECUTE | DIR | BIT_0400 | EXISTS; // 0x8427
    /// Mode of the root's '..' entry: W|X|DIR|0400|HIDDEN|EXISTS (`McCreateDirentry`).
    pub const ROOT_DOTDOT: u16 = WRITE | EXECUTE | DIR | BIT_0400 | HIDDEN | EXISTS; // 0xA426
    /// A file that was written and closed: [`NEW_FILE`] | [`CLOSED`] (0x8497), the default for
    /// files added by hand to a folder card (PCSX2's folder cards use the same default).
    pub const CLOSED_FILE: u16 = NEW_FILE | CLOSED;
}

/// A directory entry as `mcGetDir` reports it (`sceMcTblGetDir`), or the new values passed to
/// `mcSetFileInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct DirEntry {
    /// Name as the card stores it: 1..=32 bytes, no '/', no NUL (not necessarily UTF-8).
    pub name: Vec<u8>,
    /// Mode/attribute word (`AttrFile`, bits in [`mode`]).
    pub mode: u16,
    /// File size in bytes; 0 for directories (as `mcGetDir` reports them).
    pub length: u32,
    /// Creation time.
    pub created: Timestamp,
    /// Modification time.
    pub modified: Timestamp,
    /// The entry's user attribute word (the card's `attr`; `mcSetFileInfo` sets it from
    /// `Reserve2`). The console's `mcGetDir` leaves `Reserve2` zero: copy it to the EE only if
    /// that is wanted.
    pub attr: u32,
}

impl DirEntry {
    /// The name, with any byte that is not UTF-8 replaced (for messages and tests).
    pub fn name_lossy(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }

    /// Whether the mode says directory.
    pub fn is_dir(&self) -> bool {
        self.mode & mode::DIR != 0
    }
}

/// What `mcGetInfo` reports about a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardInfo {
    /// Card type: 2 = PS2 (`sceMcTypePS2`; 0 none, 1 PS1, 3 PDA).
    pub card_type: i32,
    /// Free clusters of 1024 bytes, as MCMAN counts them (`McGetFreeClusters`); 0 when
    /// unformatted.
    pub free_clusters: u32,
    /// Whether the card holds a filesystem.
    pub formatted: bool,
}

/// `sceMcTypePS2`: the card type both backends report.
pub const CARD_TYPE_PS2: i32 = 2;

/// Flags of `mcOpen` (ps2sdk `iop/kernel/include/sys/fcntl.h`, which libmc passes through
/// unchanged) and the mode bits MCMAN copies from them into a new entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OpenFlags(pub u32);

impl OpenFlags {
    /// O_RDONLY (1).
    pub const RDONLY: OpenFlags = OpenFlags(0x0001);
    /// O_WRONLY (2).
    pub const WRONLY: OpenFlags = OpenFlags(0x0002);
    /// O_RDWR (3).
    pub const RDWR: OpenFlags = OpenFlags(0x0003);
    /// O_CREAT (0x200): create the file, or replace an existing one with a new, empty entry
    /// (MCMAN has no separate truncation). Implies write access.
    pub const CREATE: OpenFlags = OpenFlags(0x0200);
    /// O_TRUNC (0x400): MCMAN ignores it (the bit is `sceMcFile0400`); so does this crate.
    pub const TRUNC: OpenFlags = OpenFlags(0x0400);
    /// 0x40: what `mcMkDir` sends through `mcOpen` to create a directory.
    pub const CREATE_DIR: OpenFlags = OpenFlags(0x0040);
    /// 0x2000: a created entry gets [`mode::HIDDEN`].
    pub const HIDDEN: OpenFlags = OpenFlags(0x2000);
    /// 0x1000: a created entry gets [`mode::PS1`].
    pub const PS1: OpenFlags = OpenFlags(0x1000);
    /// 0x0800: a created entry gets [`mode::POCKETSTATION`].
    pub const POCKETSTATION: OpenFlags = OpenFlags(0x0800);

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: OpenFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for OpenFlags {
    type Output = OpenFlags;
    fn bitor(self, rhs: OpenFlags) -> OpenFlags {
        OpenFlags(self.0 | rhs.0)
    }
}

/// Origin of `mcSeek` (the standard SEEK_SET/CUR/END values MCMAN's `McSeek` switches on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Whence {
    /// SEEK_SET (0): from the start.
    Set,
    /// SEEK_CUR (1): from the current position.
    Cur,
    /// SEEK_END (2): from the end.
    End,
}

impl Whence {
    /// Decodes the EE's value; like `McSeek`, anything unknown means SEEK_CUR.
    pub const fn from_raw(v: i32) -> Whence {
        match v {
            0 => Whence::Set,
            2 => Whence::End,
            _ => Whence::Cur,
        }
    }
}

/// Which fields `mcSetFileInfo` changes. libmc passes the game's flags to MCMAN unchanged;
/// `mcman_setinfo2` (ps2sdk `ps2mc_fio.c`) tests them with these bit values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SetInfoFlags(pub u32);

impl SetInfoFlags {
    /// 0x01 (`sceMcFileInfoCreate`): the creation time.
    pub const CREATED: SetInfoFlags = SetInfoFlags(0x01);
    /// 0x02 (`sceMcFileInfoModify`): the modification time.
    pub const MODIFIED: SetInfoFlags = SetInfoFlags(0x02);
    /// 0x04 (`sceMcFileInfoAttr`): the mode word, all bits but EXISTS, FILE and DIR (mask
    /// 0x7FCF, MCMAN's 0xFFFF7FCF).
    pub const MODE: SetInfoFlags = SetInfoFlags(0x04);
    /// 0x08: the entry's `attr` word, from `Reserve2`.
    pub const ATTR: SetInfoFlags = SetInfoFlags(0x08);
    /// 0x10: the name (this is how `mcRename` works: libmc sends flags 0x10).
    pub const NAME: SetInfoFlags = SetInfoFlags(0x10);
    /// 0x200: the mode bits R|W|X|PROTECTED|POCKETSTATION|PS1|HIDDEN only (mask 0x380F).
    pub const MODE_LIMITED: SetInfoFlags = SetInfoFlags(0x200);

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: SetInfoFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for SetInfoFlags {
    type Output = SetInfoFlags;
    fn bitor(self, rhs: SetInfoFlags) -> SetInfoFlags {
        SetInfoFlags(self.0 | rhs.0)
    }
}

/// An open file or directory of one card: MCMAN's file descriptor (0, 1 or 2). The glue maps it
/// to what the EE sees; a value that names no open handle gives `sceMcResDeniedPermit`, as an
/// invalid fd does on the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileHandle(pub i32);

/// What a save state keeps of one card's MCMAN state: the current directory, the open
/// handles and an `mcGetDir` listing in progress, each by its path from the root (a card's
/// directory ids are not stable across hosts; its names are). The card's contents are not in
/// it: the card is the player's file.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CardSession {
    /// The current directory: its names from the root (empty for the root).
    pub cwd: Vec<Vec<u8>>,
    /// The open handles.
    pub handles: Vec<SavedHandle>,
    /// The `mcGetDir` listing `getdir_continue` goes on with.
    pub listing: Option<SavedListing>,
}

impl CardSession {
    /// Whether restoring it does nothing a freshly opened card has not: the root as current
    /// directory, no handle, no listing.
    pub fn is_fresh(&self) -> bool {
        self.cwd.is_empty() && self.handles.is_empty() && self.listing.is_none()
    }

    /// The current directory's absolute path on the card ("/" for the root).
    pub fn cwd_path(&self) -> Vec<u8> {
        absolute(&self.cwd)
    }
}

/// One open handle of a [`CardSession`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedHandle {
    /// Its number, which the glue's descriptors name.
    pub handle: FileHandle,
    /// The directory the entry is in (for a directory opened as itself, that directory):
    /// names from the root.
    pub dir: Vec<Vec<u8>>,
    /// The entry's name in `dir`; `None` for a directory opened as itself ("/", ".", "..").
    pub name: Option<Vec<u8>>,
    /// Whether it is a directory's handle.
    pub is_dir: bool,
    /// The file position.
    pub pos: u32,
    /// Opened for reading (and the entry readable then).
    pub read: bool,
    /// Opened for writing.
    pub write: bool,
    /// Written since it was opened or last flushed.
    pub dirty: bool,
}

/// An `mcGetDir` listing in progress, of a [`CardSession`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedListing {
    /// The directory listed: names from the root.
    pub dir: Vec<Vec<u8>>,
    /// The next slot to look at.
    pub next: u32,
    /// The directory's slot count when the listing started.
    pub len: u32,
    /// The pattern entries are matched with.
    pub pattern: Vec<u8>,
}

impl SavedListing {
    /// The listed directory's absolute path on the card.
    pub fn dir_path(&self) -> Vec<u8> {
        absolute(&self.dir)
    }
}

impl SavedHandle {
    /// The entry's absolute path on the card, as MCMAN's paths are written ("/DIR/." for a
    /// directory opened as itself, which names the directory's own entry).
    pub fn path(&self) -> Vec<u8> {
        let mut p = absolute(&self.dir);
        let name: &[u8] = match &self.name {
            Some(n) => n,
            None if self.dir.is_empty() => return p,
            None => b".",
        };
        if p.len() > 1 {
            p.push(b'/');
        }
        p.extend_from_slice(name);
        p
    }
}

/// "/" followed by `names` joined by '/'.
pub(crate) fn absolute(names: &[Vec<u8>]) -> Vec<u8> {
    let mut p = Vec::new();
    for n in names {
        p.push(b'/');
        p.extend_from_slice(n);
    }
    if p.is_empty() {
        p.push(b'/');
    }
    p
}

/// MCMAN's number of file descriptors (`MAX_FDHANDLES` = 3, ps2sdk
/// `iop/memorycard/mcman/src/mcman-internal.h`), shared by every card on the console. Each card
/// here has its own table of this size; the glue enforces the console-wide limit if it serves
/// two cards (Play! allows 5; ps2sdk's MCMAN, reconstructed from Sony's, 3).
pub const MAX_OPEN_FILES: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_bytes_round_trip() {
        let t = Timestamp::new(2004, 12, 31, 23, 59, 58);
        let b = t.to_bytes();
        assert_eq!(b, [0, 58, 59, 23, 31, 12, 0xD4, 0x07]);
        assert_eq!(Timestamp::from_bytes(b), t);
    }

    #[test]
    fn unix_to_jst() {
        // 2000-01-01T00:00:00Z is 946684800; in JST that is 09:00 the same day.
        assert_eq!(
            Timestamp::from_unix_jst(946_684_800),
            Timestamp::new(2000, 1, 1, 9, 0, 0)
        );
        // 2024-02-29T20:30:15Z (leap day), JST 2024-03-01 05:30:15.
        assert_eq!(
            Timestamp::from_unix_jst(1_709_238_615),
            Timestamp::new(2024, 3, 1, 5, 30, 15)
        );
        assert_eq!(Timestamp::from_unix_jst(-100_000), Timestamp::RTC_FALLBACK);
    }

    #[test]
    fn whence_default_is_cur() {
        assert_eq!(Whence::from_raw(0), Whence::Set);
        assert_eq!(Whence::from_raw(1), Whence::Cur);
        assert_eq!(Whence::from_raw(2), Whence::End);
        assert_eq!(Whence::from_raw(7), Whence::Cur);
    }

    #[test]
    fn mode_constants() {
        assert_eq!(mode::NEW_FILE, 0x8417);
        assert_eq!(mode::NEW_DIR, 0x8427);
        assert_eq!(mode::ROOT_DOTDOT, 0xA426);
        assert_eq!(mode::CLOSED_FILE, 0x8497);
    }
}
