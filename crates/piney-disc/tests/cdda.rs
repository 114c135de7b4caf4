//! CD-DA: a cue sheet's every track laid out on the disc (files one after another, INDEX 00
//! pregaps in a file, PREGAP silence outside it), the table of contents, and whole sectors of
//! any track by disc sector number. Expectations are worked out by hand from the cue sheets
//! below (75 frames a second; LSN 0 is track 1's INDEX 01).

mod common;

use common::{Scratch, iso_to_bin, make_iso};
use piney_disc::{SectorSource, Track};

/// Byte `o` of audio frame `f` of the audio file: a pattern no two sectors share.
fn audio_byte(f: u64, o: usize) -> u8 {
    (f.wrapping_mul(31) as usize ^ o.wrapping_mul(7)) as u8
}

fn audio_file(frames: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(frames as usize * 2352);
    for f in 0..frames {
        out.extend((0..2352).map(|o| audio_byte(f, o)));
    }
    out
}

#[test]
fn a_data_track_and_two_audio_tracks_in_two_files() {
    let s = Scratch::new("cdda");
    let iso = std::fs::read(make_iso(&s, "data", &[])).unwrap();
    let d = (iso.len() / 2048) as u64;
    std::fs::write(s.path("data.bin"), iso_to_bin(&iso, 1)).unwrap();
    std::fs::write(s.path("audio.bin"), audio_file(650)).unwrap();
    std::fs::write(
        s.path("disc.cue"),
        "FILE \"data.bin\" BINARY\n  TRACK 01 MODE1/2352\n    INDEX 01 00:00:00\n\
         FILE \"audio.bin\" BINARY\n  TRACK 02 AUDIO\n    INDEX 00 00:00:00\n    INDEX 01 00:02:00\n\
         \x20 TRACK 03 AUDIO\n    PREGAP 00:01:00\n    INDEX 01 00:06:00\n",
    )
    .unwrap();
    let mut disc = piney_disc::open(s.path("disc.cue")).unwrap();
    // Track 1: the data file's d sectors, then track 2's 150-frame pregap (in audio.bin) until
    // its INDEX 01; track 2 runs to track 3's PREGAP silence (75) and INDEX 01 at frame 450
    // of audio.bin; track 3 is audio.bin's last 200 frames.
    assert_eq!(
        disc.tracks(),
        vec![
            Track {
                number: 1,
                audio: false,
                start: 0,
                sectors: d + 150
            },
            Track {
                number: 2,
                audio: true,
                start: d + 150,
                sectors: 300 + 75
            },
            Track {
                number: 3,
                audio: true,
                start: d + 525,
                sectors: 200
            },
        ]
    );
    assert_eq!(disc.lead_out(), d + 725);
    // The data track reads as before.
    assert_eq!(disc.sector_count(), d);
    let mut user = [0u8; 2048];
    disc.read_user(16, &mut user).unwrap();
    assert_eq!(&user[1..6], b"CD001");
    let mut raw = [0u8; 2352];
    // A data sector whole: sync, then the header's 00:02:16.
    disc.read_cdda(16, &mut raw).unwrap();
    assert_eq!(raw[1..11], [0xff; 10]);
    assert_eq!(raw[12..16], [0x00, 0x02, 0x16, 0x01]);
    // Track 2's pregap and its first sector: frames 0 and 150 of audio.bin.
    for (lsn, frame) in [
        (d, 0),
        (d + 150, 150),
        (d + 449, 449),
        (d + 525, 450),
        (d + 724, 649),
    ] {
        disc.read_cdda(lsn, &mut raw).unwrap();
        let want: Vec<u8> = (0..2352).map(|o| audio_byte(frame, o)).collect();
        assert!(
            raw[..] == want[..],
            "sector {lsn} is not audio frame {frame}"
        );
    }
    // The PREGAP's silence is in no file.
    raw.fill(0x55);
    disc.read_cdda(d + 450, &mut raw).unwrap();
    assert!(raw.iter().all(|&b| b == 0));
    disc.read_cdda(d + 524, &mut raw).unwrap();
    assert!(raw.iter().all(|&b| b == 0));
    // The lead-out and beyond: an error naming the sector.
    let e = disc.read_cdda(d + 725, &mut raw).unwrap_err().to_string();
    assert!(e.contains(&format!("{}", d + 725)), "{e}");
}

#[test]
fn an_audio_cd_has_tracks_and_no_data() {
    let s = Scratch::new("cdda-audio");
    std::fs::write(s.path("a.bin"), audio_file(400)).unwrap();
    std::fs::write(
        s.path("music.cue"),
        "FILE \"a.bin\" BINARY\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nINDEX 00 00:03:00\nINDEX 01 00:04:00\n",
    )
    .unwrap();
    let mut disc = piney_disc::open(s.path("music.cue")).unwrap();
    assert_eq!(disc.sector_count(), 0);
    assert_eq!(
        disc.tracks(),
        vec![
            Track {
                number: 1,
                audio: true,
                start: 0,
                sectors: 300
            },
            Track {
                number: 2,
                audio: true,
                start: 300,
                sectors: 100
            },
        ]
    );
    let mut raw = [0u8; 2352];
    disc.read_cdda(299, &mut raw).unwrap();
    assert_eq!(raw[5], audio_byte(299, 5));
    assert!(disc.read_user(0, &mut [0u8; 2048]).is_err());
    assert!(disc.into_filesystem().is_err());
}

#[test]
fn an_iso_has_one_data_track_and_no_whole_sectors() {
    let s = Scratch::new("cdda-iso");
    let iso = make_iso(&s, "plain", &[]);
    let n = std::fs::metadata(&iso).unwrap().len() / 2048;
    let mut disc = piney_disc::open(&iso).unwrap();
    assert_eq!(
        disc.tracks(),
        vec![Track {
            number: 1,
            audio: false,
            start: 0,
            sectors: n
        }]
    );
    assert_eq!(disc.lead_out(), n);
    assert!(disc.read_cdda(0, &mut [0u8; 2352]).is_err());
}

/// `chdman createcd` of a disc laid out as redump's are (a file a track; track 2's pregap in
/// its file, track 3's a PREGAP): the same tracks as its cue sheet, and every sector the same
/// (chdman stores audio samples big-endian; they read back as the BIN had them).
#[test]
fn a_chd_of_the_same_disc_reads_the_same() {
    let s = Scratch::new("cdda-chd");
    let iso = std::fs::read(make_iso(&s, "data", &[])).unwrap();
    let d = (iso.len() / 2048) as u64;
    std::fs::write(s.path("data.bin"), iso_to_bin(&iso, 1)).unwrap();
    let audio = audio_file(650);
    std::fs::write(s.path("t2.bin"), &audio[..450 * 2352]).unwrap();
    std::fs::write(s.path("t3.bin"), &audio[450 * 2352..]).unwrap();
    std::fs::write(
        s.path("disc.cue"),
        "FILE \"data.bin\" BINARY\n  TRACK 01 MODE1/2352\n    INDEX 01 00:00:00\n\
         FILE \"t2.bin\" BINARY\n  TRACK 02 AUDIO\n    INDEX 00 00:00:00\n    INDEX 01 00:02:00\n\
         FILE \"t3.bin\" BINARY\n  TRACK 03 AUDIO\n    PREGAP 00:01:00\n    INDEX 01 00:00:00\n",
    )
    .unwrap();
    let chd = s.path("disc.chd");
    common::chdman(&[
        "createcd",
        "-i",
        s.path("disc.cue").to_str().unwrap(),
        "-o",
        chd.to_str().unwrap(),
    ]);
    let mut cue = piney_disc::open(s.path("disc.cue")).unwrap();
    let mut chd = piney_disc::open(&chd).unwrap();
    // The same disc as the two-file sheet of the first test.
    let starts: Vec<u64> = cue.tracks().iter().map(|t| t.start).collect();
    assert_eq!(starts, [0, d + 150, d + 525]);
    assert_eq!(cue.lead_out(), d + 725);
    assert_eq!(chd.tracks(), cue.tracks());
    assert_eq!(chd.lead_out(), cue.lead_out());
    let (mut a, mut b) = ([0u8; 2352], [0u8; 2352]);
    for lsn in 0..cue.lead_out() {
        cue.read_cdda(lsn, &mut a).unwrap();
        chd.read_cdda(lsn, &mut b).unwrap();
        assert!(a == b, "sector {lsn} differs");
    }
    let mut user = [0u8; 2048];
    chd.read_user(16, &mut user).unwrap();
    assert_eq!(&user[1..6], b"CD001");
}
