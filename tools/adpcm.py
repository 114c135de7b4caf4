#!/usr/bin/env python3
"""adpcm.py: PS-ADPCM, the SPU2's sample format, and the demo title's sound bank.

The format (the SPU's, unchanged since the first PlayStation): a sample is a run of 16-byte
blocks, each holding 28 samples.

    byte 0     shift (low nibble, 0..12) | filter << 4 (0..4)
    byte 1     flags: bit 0 loop end (after this block, jump to the loop address),
                      bit 1 loop repeat (with bit 0: keep playing from the loop address;
                            without it, bit 0 ends the voice: release, level 0, ENDX set),
                      bit 2 loop start (this block's address becomes the loop address)
    bytes 2-15 28 signed 4-bit samples, the low nibble of each byte first

A block decodes, sample by sample, with the two previous decoded samples (old, older) and the
block's filter pair (f0, f1), in 1/64 units:

    s = ((nibble sign-extended) << 12) >> shift
    s = s + ((old * f0 + older * f1 + 32) >> 6), clamped to -32768..32767

    filter   0      1      2      3      4
    f0       0     60    115     98    122
    f1       0      0    -52    -55    -60

The decoder's history is zero when a voice is keyed on; on a loop it carries on from the loop
end's last two samples.

The encoder below tries every filter and shift for each block, quantising in a closed loop
(each sample's nibble is chosen against the decoder's own history, as the SPU will decode it)
and keeps the pair with the smallest squared error (ties: the lower filter, then the lower
shift). A looping sample's first block (the loop start) is always encoded with filter 0, whose
decoding needs no history: it then decodes the same at key on and on every repeat.

Everything that reaches the output is integer arithmetic or IEEE double arithmetic (+ - * /
and sqrt, all correctly rounded); sin, exp and 2**x are computed by the series below rather
than by the platform's libm, so the output is the same bytes on every machine.

Usage:
    tools/adpcm.py            write demo/iop/ccsnd_samples.h (the demo's sound bank)
    tools/adpcm.py --check    regenerate into a temporary file and fail if the committed
                              header differs
    tools/adpcm.py --wav DIR  also write each sample, decoded, as DIR/<name>.wav (to listen)
"""

import math
import os
import sys
import tempfile

FILTERS = ((0, 0), (60, 0), (115, -52), (98, -55), (122, -60))
BLOCK_SAMPLES = 28
BLOCK_BYTES = 16
FLAG_LOOP_END = 1
FLAG_LOOP_REPEAT = 2
FLAG_LOOP_START = 4
MAX_SHIFT = 12

OUTPUT_RATE = 48000  # the SPU2's output rate: pitch 0x1000 plays a sample at 48 kHz
PITCH_ONE = 0x1000
PITCH_MAX = 0x3FFF

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join("demo", "iop", "ccsnd_samples.h")
SPU_BASE = 0x5010  # where ccsnd.c puts the bank in sound RAM (after libsd's silent block)


# ---- Deterministic maths -------------------------------------------------------------------

PI = 3.141592653589793
TWO_PI = 6.283185307179586
LN2 = 0.6931471805599453


def d_sin(x):
    """sin(x) by range reduction to [-pi/2, pi/2] and its Taylor series."""
    k = int(x / TWO_PI)
    x = x - k * TWO_PI
    if x > PI:
        x -= TWO_PI
    elif x < -PI:
        x += TWO_PI
    if x > PI / 2:
        x = PI - x
    elif x < -PI / 2:
        x = -PI - x
    x2 = x * x
    term = x
    total = x
    for n in range(1, 12):
        term = -term * x2 / ((2 * n) * (2 * n + 1))
        total += term
    return total


def d_exp(x):
    """exp(x): x halved until small, the Taylor series, then squared back."""
    halvings = 0
    while x > 0.5 or x < -0.5:
        x /= 2.0
        halvings += 1
    term = 1.0
    total = 1.0
    for n in range(1, 18):
        term = term * x / n
        total += term
    for _ in range(halvings):
        total *= total
    return total


def note_hz(note):
    """Equal temperament, A4 (note 69) = 440 Hz."""
    return 440.0 * d_exp((note - 69) / 12.0 * LN2)


def to_i16(v):
    r = int(v + 0.5) if v >= 0 else -int(-v + 0.5)
    return max(-32768, min(32767, r))


# ---- The codec -------------------------------------------------------------------------------


def decode_block(block, old, older):
    """Decode one 16-byte block; returns (samples, old, older)."""
    shift = block[0] & 0x0F
    f0, f1 = FILTERS[block[0] >> 4]
    out = []
    for i in range(BLOCK_SAMPLES):
        nib = (block[2 + i // 2] >> (4 * (i & 1))) & 0x0F
        if nib >= 8:
            nib -= 16
        s = (nib << 12) >> shift
        s += (old * f0 + older * f1 + 32) >> 6
        s = max(-32768, min(32767, s))
        out.append(s)
        older, old = old, s
    return out, old, older


def decode(data, loops=1):
    """Decode a whole sample (playing a looping one `loops` times through its loop)."""
    old = older = 0
    out = []
    for _ in range(loops):
        for b in range(0, len(data), BLOCK_BYTES):
            samples, old, older = decode_block(data[b:b + BLOCK_BYTES], old, older)
            out.extend(samples)
    return out


def try_block(samples, filt, shift, old, older):
    """Closed-loop quantisation of 28 samples with one filter and shift.
    Returns (squared error, nibbles, old, older)."""
    f0, f1 = FILTERS[filt]
    step = 1 << (12 - shift)  # the value of one nibble unit after the shift
    half = step >> 1
    err = 0
    nibs = []
    for x in samples:
        pred = (old * f0 + older * f1 + 32) >> 6
        n = (x - pred + half) // step
        n = max(-8, min(7, n))
        s = max(-32768, min(32767, ((n << 12) >> shift) + pred))
        err += (s - x) * (s - x)
        nibs.append(n & 0x0F)
        older, old = old, s
    return err, nibs, old, older


def encode(samples, loop):
    """PS-ADPCM of a list of i16 samples (padded with zeros to whole blocks). A looping sample
    loops over all of it; a one-shot ends the voice after its last block."""
    samples = list(samples) + [0] * (-len(samples) % BLOCK_SAMPLES)
    nblocks = len(samples) // BLOCK_SAMPLES
    out = bytearray()
    old = older = 0
    for b in range(nblocks):
        chunk = samples[b * BLOCK_SAMPLES:(b + 1) * BLOCK_SAMPLES]
        filters = (0,) if (loop and b == 0) else range(len(FILTERS))
        best = None
        for filt in filters:
            for shift in range(MAX_SHIFT + 1):
                r = try_block(chunk, filt, shift, old, older)
                if best is None or r[0] < best[0][0]:
                    best = (r, filt, shift)
        (err, nibs, old, older), filt, shift = best
        flags = 0
        if loop:
            flags = FLAG_LOOP_REPEAT
            if b == 0:
                flags |= FLAG_LOOP_START
            if b == nblocks - 1:
                flags |= FLAG_LOOP_END
        elif b == nblocks - 1:
            flags = FLAG_LOOP_END
        out.append(shift | filt << 4)
        out.append(flags)
        for i in range(0, BLOCK_SAMPLES, 2):
            out.append(nibs[i] | nibs[i + 1] << 4)
    return bytes(out)


def snr_db(ref, got):
    sig = sum(x * x for x in ref)
    noise = sum((a - b) * (a - b) for a, b in zip(ref, got))
    if noise == 0:
        return 999.0
    return 10.0 * math.log10(sig / noise)  # only printed


# ---- The demo's waveforms --------------------------------------------------------------------


def additive(length, period_or_freq, rate, harmonics, amp):
    """Sum of sines: harmonics is a list of (k, amplitude) of the fundamental; a period (in
    samples, an int) or a frequency in Hz (a float) gives the fundamental."""
    if isinstance(period_or_freq, int):
        w = TWO_PI / period_or_freq
    else:
        w = TWO_PI * period_or_freq / rate
    raw = [sum(a * d_sin(k * w * n) for k, a in harmonics) for n in range(length)]
    peak = max(abs(v) for v in raw)
    return [v * amp / peak for v in raw]


def lead():
    """A soft square: one cycle of 112 samples (4 blocks), odd harmonics 1..9 rolled off
    faster than a square's 1/k. At pitch 0x1000 it sounds 48000/112 = 428.57 Hz."""
    harm = [(k, 1.0 / (k * math.sqrt(k))) for k in (1, 3, 5, 7, 9)]
    return [to_i16(v) for v in additive(112, 112, OUTPUT_RATE, harm, 26000.0)]


def bass():
    """A triangle with some saw in it: one cycle of 224 samples (8 blocks), harmonics 1..12.
    At pitch 0x1000 it sounds 48000/224 = 214.29 Hz."""
    harm = []
    for k in range(1, 13):
        tri = (1.0 / (k * k)) * (1 if k % 4 == 1 else -1) if k % 2 else 0.0
        saw = 0.25 / k
        harm.append((k, tri + saw))
    return [to_i16(v) for v in additive(224, 224, OUTPUT_RATE, harm, 28000.0)]


def fade_tail(samples, rate, seconds):
    n = min(len(samples), int(rate * seconds))
    out = list(samples)
    for i in range(n):
        out[len(out) - n + i] = out[len(out) - n + i] * (n - 1 - i) / n
    return out


def kick():
    """A kick drum without noise: a sine falling from 160 Hz to 50 Hz, a 1 ms attack, an
    exponential decay, at 16 kHz for 57 blocks (99.75 ms)."""
    rate = 16000
    length = 57 * BLOCK_SAMPLES
    out = []
    phase = 0.0
    for n in range(length):
        t = n / rate
        f = 50.0 + 110.0 * d_exp(-t / 0.025)
        env = d_exp(-t / 0.040) * min(1.0, t / 0.001)
        out.append(30000.0 * env * d_sin(phase))
        phase += TWO_PI * f / rate
    return [to_i16(v) for v in fade_tail(out, rate, 0.010)], rate


def hat():
    """A metallic hi-hat without noise: six square waves at inharmonic frequencies (the
    classic analogue cymbal's), each kept only from 6 kHz to 14 kHz (its odd harmonics in that
    band, 1/k), a fast decay, at 32 kHz for 46 blocks (40.25 ms)."""
    rate = 32000
    length = 46 * BLOCK_SAMPLES
    freqs = (205.3, 304.4, 369.6, 522.7, 540.0, 800.0)
    partials = []
    for f in freqs:
        for k in range(1, 80, 2):
            if 6000.0 <= k * f <= 14000.0:
                partials.append((TWO_PI * k * f / rate, 1.0 / k))
    raw = []
    for n in range(length):
        t = n / rate
        env = d_exp(-t / 0.010) * min(1.0, t / 0.0005)
        raw.append(env * sum(a * d_sin(w * n) for w, a in partials))
    peak = max(abs(v) for v in raw)
    out = [v * 24000.0 / peak for v in raw]
    return [to_i16(v) for v in fade_tail(out, rate, 0.004)], rate


def blip():
    """The effect: a two-note 'pling' (B5 for 25 ms, then E6), band-limited squares (odd
    harmonics under 8 kHz), the second note decaying, at 24 kHz for 60 blocks (70 ms)."""
    rate = 24000
    length = 60 * BLOCK_SAMPLES
    out = []
    phase = 0.0
    for n in range(length):
        t = n / rate
        f = note_hz(83) if t < 0.025 else note_hz(88)
        env = 1.0 if t < 0.025 else d_exp(-(t - 0.025) / 0.020)
        env *= min(1.0, t / 0.001)
        v = 0.0
        k = 1
        while k * f < 8000.0:
            v += d_sin(k * phase) / k
            k += 2
        out.append(20000.0 * env * v)
        phase += TWO_PI * f / rate
        if phase > TWO_PI:
            phase -= TWO_PI
    return [to_i16(v) for v in fade_tail(out, rate, 0.005)], rate


def pitch_table(cycle_hz, lo, hi):
    """The voice pitch (0x1000 = 48 kHz) that plays a one-cycle loop sounding cycle_hz at
    pitch 0x1000 as each note lo..hi."""
    table = []
    for note in range(lo, hi + 1):
        p = int(PITCH_ONE * note_hz(note) / cycle_hz + 0.5)
        assert 0 < p <= PITCH_MAX, (note, p)
        table.append(p)
    return table


# ---- The header ------------------------------------------------------------------------------


def build():
    """The bank: (name, description, samples, rate, loop) for each sample, in bank order."""
    kick_s, kick_r = kick()
    hat_s, hat_r = hat()
    blip_s, blip_r = blip()
    return [
        ("LEAD", "soft square, one 112-sample cycle, loops", lead(), OUTPUT_RATE, True),
        ("BASS", "triangle and saw, one 224-sample cycle, loops", bass(), OUTPUT_RATE, True),
        ("KICK", "falling sine, one-shot", kick_s, kick_r, False),
        ("HAT", "six inharmonic squares, 6-14 kHz, one-shot", hat_s, hat_r, False),
        ("BLIP", "the effect: B5 then E6, one-shot", blip_s, blip_r, False),
    ]


LEAD_NOTES = (60, 92)  # C4..G#6 (A6 would need a pitch over 0x3FFF)
BASS_NOTES = (24, 60)  # C1..C4


def render(report=None, wavdir=None):
    bank = bytearray()
    entries = []
    for name, what, samples, rate, loop in build():
        data = encode(samples, loop)
        offset = len(bank)
        bank += data
        decoded = decode(data)
        if report is not None:
            report.append("%-4s %5d bytes %5d Hz  SNR %5.1f dB" %
                          (name, len(data), rate, snr_db(samples, decoded[:len(samples)])))
        if wavdir:
            write_wav(os.path.join(wavdir, name.lower() + ".wav"),
                      decode(data, 8) if loop else decoded, rate)
        entries.append((name, what, offset, len(data), rate, loop))
    used = len(bank)
    bank += bytes(-len(bank) % 64)  # sceSdVoiceTrans's DMA moves whole 64-byte blocks

    lines = []
    w = lines.append
    w("/* ccsnd_samples.h: the demo title's sound bank, generated by tools/adpcm.py (do not edit:")
    w(" * change the script and run it; tools/adpcm.py --check compares). PS-ADPCM, 16-byte blocks")
    w(" * of 28 samples. ccsnd.c transfers the whole bank to sound RAM at CCSND_SPU_BASE; each")
    w(" * sample's start address (a voice's SSA) is CCSND_SPU_BASE + its offset. A looping sample")
    w(" * loops over all of it (loop start on its first block, loop end + repeat on its last); a")
    w(" * one-shot ends its voice after its last block. */")
    w("#ifndef CCSND_SAMPLES_H")
    w("#define CCSND_SAMPLES_H")
    w("")
    w("#define CCSND_SPU_BASE 0x%04x /* after libsd's 16-byte silent block at 0x5000 */" % SPU_BASE)
    w("#define CCSND_BANK_BYTES %d /* %d used, padded to 64-byte DMA blocks */" % (len(bank), used))
    w("")
    for name, what, offset, size, rate, loop in entries:
        pitch = int(PITCH_ONE * rate / OUTPUT_RATE + 0.5)
        w("/* %s: %s, %d Hz */" % (name.lower(), what, rate))
        w("#define CCSND_%s_OFFSET 0x%04x" % (name, offset))
        w("#define CCSND_%s_BYTES %d" % (name, size))
        w("#define CCSND_%s_PITCH 0x%04x /* plays it at its own rate */" % (name, pitch))
    w("")
    for label, sname, period, (lo, hi) in (("lead", "LEAD", 112, LEAD_NOTES),
                                           ("bass", "BASS", 224, BASS_NOTES)):
        table = pitch_table(OUTPUT_RATE / period, lo, hi)
        w("/* Pitches that play the %s's cycle (%d samples) as notes %d..%d (60 = C4, A4 = 440 Hz). */"
          % (label, period, lo, hi))
        w("#define CCSND_%s_NOTE_LO %d" % (sname, lo))
        w("#define CCSND_%s_NOTE_HI %d" % (sname, hi))
        w("static const u16 ccsnd_%s_pitch[%d] = {" % (label, len(table)))
        for i in range(0, len(table), 10):
            w("    " + " ".join("0x%04x," % p for p in table[i:i + 10]))
        w("};")
        w("")
    w("static const u8 ccsnd_bank[CCSND_BANK_BYTES] __attribute__((aligned(64))) = {")
    for i in range(0, len(bank), 16):
        w("    " + " ".join("0x%02x," % b for b in bank[i:i + 16]))
    w("};")
    w("")
    w("#endif")
    return "\n".join(lines) + "\n"


def write_wav(path, samples, rate):
    import struct
    data = b"".join(struct.pack("<h", s) for s in samples)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16))
        f.write(b"data" + struct.pack("<I", len(data)) + data)


def self_test():
    """The codec against itself: a block of each filter decodes as its nibbles say."""
    # A ramp from 0 encodes with predicting filters and decodes close to itself.
    ramp = [i * 300 for i in range(56)]
    data = encode(ramp, False)
    assert data[0] >> 4 != 0 and data[16] >> 4 != 0, "ramp filters"
    assert max(abs(a - b) for a, b in zip(ramp, decode(data))) <= 64, "ramp"
    # Flags: a looping sample, a one-shot.
    d = encode([0] * 84, True)
    assert [d[1], d[17], d[33]] == [6, 2, 3], "loop flags"
    d = encode([0] * 56, False)
    assert [d[1], d[17]] == [0, 1], "one-shot flags"
    # The decoder's rule on one hand-made block: filter 1, shift 12, nibbles 1, -1, 7, -8...
    blk = bytes([0x1C, 0, 0xF1, 0x87] + [0] * 12)
    s, _, _ = decode_block(blk, 0, 0)
    # s0 = 1; s1 = -1 + (1*60+32)>>6 = 0; s2 = 7 + 0 = 7; s3 = -8 + (7*60+32)>>6 = -1
    assert s[:4] == [1, 0, 7, -1], s[:4]


def main(argv):
    self_test()
    check = "--check" in argv
    wavdir = None
    if "--wav" in argv:
        wavdir = argv[argv.index("--wav") + 1]
        os.makedirs(wavdir, exist_ok=True)
    report = []
    text = render(report, wavdir)
    target = os.path.join(ROOT, HEADER)
    if check:
        with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as tmp:
            tmp.write(text)
            tmp_path = tmp.name
        try:
            with open(tmp_path) as a:
                fresh = a.read()
            try:
                with open(target) as b:
                    committed = b.read()
            except FileNotFoundError:
                committed = None
        finally:
            os.unlink(tmp_path)
        if fresh != committed:
            print("adpcm: %s differs from tools/adpcm.py's output (run tools/adpcm.py)" % HEADER,
                  file=sys.stderr)
            return 1
        print("adpcm: %s matches tools/adpcm.py" % HEADER)
        return 0
    with open(target, "w") as f:
        f.write(text)
    for line in report:
        print(line)
    print("wrote %s" % HEADER)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
