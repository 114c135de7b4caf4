//! The subchannel a CD-DA read appends to each sector (datapattern 1: 16 bytes, 2: 96 bytes),
//! made from the table of contents, since disc images keep no subchannel.
//!
//! Facts (ECMA-130, 2nd edition, section 22.3: the subcode): each sector carries 96 bits of
//! each of the channels P..W, sent as 96 bytes whose bit 7 is P, bit 6 Q, bits 5..0 R..W.
//! Q in mode 1 (ADR 1) is 12 bytes: CONTROL (high nibble: 0 two-channel audio, 4 data) with
//! ADR (low nibble), TNO and INDEX, the time within the track (MIN, SEC, FRAME), a zero byte,
//! the time on the disc (AMIN, ASEC, AFRAME; LSN 0 is 00:02:00), all in BCD, then a CRC-16
//! (x^16 + x^12 + x^5 + 1, stored inverted, high byte first) over the first ten. P is the
//! pause flag, 0 within a track's program area. R..W (CD+G graphics) are zero on these discs.
//! The 16 bytes of datapattern 1 are Q's 12 and the first 4 of R (zeros): what disc plugins
//! hand PCSX2 for SCECdSecS2368.
//!
//! piney's images keep no INDEX 00 positions, so a sector is reported at INDEX 01 of the last
//! track starting at or before it, its time counted from that track's start.

use crate::disc::Track;

fn bcd(v: u64) -> u8 {
    (((v / 10 % 10) << 4) | (v % 10)) as u8
}

fn msf(sectors: u64) -> [u8; 3] {
    [
        bcd(sectors / 4500),
        bcd(sectors / 75 % 60),
        bcd(sectors % 75),
    ]
}

/// CRC-16/CCITT (polynomial 0x1021, initial 0), as the Q channel's check uses before it is
/// inverted.
fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in data {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The 12 bytes of Q for sector `lsn` of a disc with `tracks`.
pub fn q(tracks: &[Track], lsn: u64) -> [u8; 12] {
    let track = tracks
        .iter()
        .rev()
        .find(|t| t.start <= lsn)
        .or(tracks.first())
        .copied()
        .unwrap_or(Track {
            number: 1,
            audio: false,
            start: 0,
        });
    let control: u8 = if track.audio { 0x00 } else { 0x40 };
    let rel = msf(lsn.saturating_sub(track.start));
    let abs = msf(lsn + 150);
    let mut q = [0u8; 12];
    q[0] = control | 0x01;
    q[1] = bcd(u64::from(track.number));
    q[2] = 0x01;
    q[3..6].copy_from_slice(&rel);
    q[7..10].copy_from_slice(&abs);
    let crc = !crc16(&q[..10]);
    q[10..12].copy_from_slice(&crc.to_be_bytes());
    q
}

/// Appends sector `lsn`'s `extra` bytes of subchannel (0, 16 or 96) to `buf`.
pub fn append(buf: &mut Vec<u8>, tracks: &[Track], lsn: u64, extra: u32) {
    match extra {
        0 => {}
        16 => {
            buf.extend_from_slice(&q(tracks, lsn));
            buf.extend_from_slice(&[0; 4]);
        }
        _ => {
            // Interleaved: bit 6 of byte i is bit i of Q, most significant bit first.
            let q = q(tracks, lsn);
            buf.extend((0..96).map(|i| ((q[i / 8] >> (7 - i % 8)) & 1) << 6));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q_of_an_audio_sector_by_hand() {
        let tracks = [
            Track {
                number: 1,
                audio: false,
                start: 0,
            },
            Track {
                number: 2,
                audio: true,
                start: 1000,
            },
        ];
        // LSN 5000: track 2, 4000 sectors in (00:53:25), disc time 5150 (01:08:50).
        let q = q(&tracks, 5000);
        assert_eq!(
            q[..10],
            [0x01, 0x02, 0x01, 0x00, 0x53, 0x25, 0, 0x01, 0x08, 0x50]
        );
        // The CRC check: the CRC of all 12 bytes with the stored CRC un-inverted is zero.
        let mut plain = q;
        plain[10] = !plain[10];
        plain[11] = !plain[11];
        assert_eq!(crc16(&plain), 0);
        // The data track's sector 16: CONTROL 4.
        assert_eq!(super::q(&tracks, 16)[..3], [0x41, 0x01, 0x01]);
        let mut raw = Vec::new();
        append(&mut raw, &tracks, 5000, 96);
        assert_eq!(raw.len(), 96);
        // Q's first byte 0x01: bits 0..6 clear, bit 7 set.
        assert!(raw[..7].iter().all(|&b| b == 0));
        assert_eq!(raw[7], 0x40);
        assert!(raw.iter().all(|&b| b & !0x40 == 0));
    }
}
