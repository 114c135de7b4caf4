//! The binary's sound sinks: `--dump-audio FILE.wav` (16-bit stereo PCM at 48 kHz, written as
//! the run goes, the header finished when it ends) and the queue the window's player takes the
//! sound from, behind the machine's [`AudioSink`]; [`Tee`] gives the sound to both.

use std::cell::RefCell;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use piney_machine::audio::{AudioSink, SAMPLE_RATE};

type Writer = hound::WavWriter<BufWriter<File>>;

/// `--dump-audio`: the WAV file being written. Clones share the file: the machine owns one as
/// its sink, the caller keeps one to [`WavDump::finish`] it.
#[derive(Clone)]
pub struct WavDump {
    path: PathBuf,
    writer: Rc<RefCell<Option<Writer>>>,
    error: Rc<RefCell<Option<String>>>,
}

impl WavDump {
    /// Create (or replace) `path`.
    pub fn create(path: &Path) -> Result<Self, String> {
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: SAMPLE_RATE,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let w = hound::WavWriter::create(path, spec)
            .map_err(|e| format!("--dump-audio {}: {e}", path.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            writer: Rc::new(RefCell::new(Some(w))),
            error: Rc::new(RefCell::new(None)),
        })
    }

    /// Finish the file (its header's sizes); the first write error, if one happened.
    pub fn finish(&self) -> Result<u64, String> {
        if let Some(e) = self.error.borrow_mut().take() {
            return Err(e);
        }
        let Some(w) = self.writer.borrow_mut().take() else {
            return Ok(0);
        };
        let frames = w.duration() as u64;
        w.finalize()
            .map_err(|e| format!("--dump-audio {}: {e}", self.path.display()))?;
        Ok(frames)
    }
}

impl AudioSink for WavDump {
    fn samples(&mut self, stereo: &[i16]) {
        let mut slot = self.writer.borrow_mut();
        let Some(w) = slot.as_mut() else { return };
        for &s in stereo {
            if let Err(e) = w.write_sample(s) {
                *self.error.borrow_mut() =
                    Some(format!("--dump-audio {}: {e}", self.path.display()));
                *slot = None;
                return;
            }
        }
    }
}

/// The samples the window has not taken yet (clones share them).
#[derive(Clone, Default)]
pub struct Queue(Rc<RefCell<Vec<i16>>>);

impl Queue {
    /// Moves what is queued onto the end of `out`.
    pub fn take(&self, out: &mut Vec<i16>) {
        out.append(&mut self.0.borrow_mut());
    }
}

impl AudioSink for Queue {
    fn samples(&mut self, stereo: &[i16]) {
        self.0.borrow_mut().extend_from_slice(stereo);
    }
}

/// The same samples to every sink, in order.
pub struct Tee(pub Vec<Box<dyn AudioSink>>);

impl AudioSink for Tee {
    fn samples(&mut self, stereo: &[i16]) {
        for s in &mut self.0 {
            s.samples(stereo);
        }
    }
}
