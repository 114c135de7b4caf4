//! The machine's sound output: the SPU2's 48 kHz stereo samples handed to whoever listens.
//!
//! Contract: the IOP's SPU2 makes its samples on the emulated clock; at every vertical blank
//! (and at [`Machine::flush_audio`]) the samples made since are given, in order and exactly
//! once, to the [`AudioSink`] set with [`Machine::set_audio_sink`] (the window's player, a WAV
//! writer, a test's buffer). With no sink they are dropped. The samples depend only on the
//! program, its input and the options: never on the host's clock or on the sink.

use crate::Machine;

/// The output rate: the SPU2's 48 kHz.
pub const SAMPLE_RATE: u32 = 48_000;

/// Takes the machine's sound.
pub trait AudioSink {
    /// `stereo`: interleaved left, right samples at [`SAMPLE_RATE`].
    fn samples(&mut self, stereo: &[i16]);
}

/// A sink that keeps everything (tests).
#[derive(Debug, Default, Clone)]
pub struct Collect(pub std::rc::Rc<std::cell::RefCell<Vec<i16>>>);

impl AudioSink for Collect {
    fn samples(&mut self, stereo: &[i16]) {
        self.0.borrow_mut().extend_from_slice(stereo);
    }
}

impl Machine {
    /// Give the sound to `sink` from now on.
    pub fn set_audio_sink(&mut self, sink: Box<dyn AudioSink>) {
        self.audio_sink = Some(sink);
    }

    /// Hand the samples made so far to the sink (the machine does this at every vertical
    /// blank; call it once more when a run ends).
    pub fn flush_audio(&mut self) {
        let audio = &mut self.bus.iop.bus.hw.audio;
        if let Some(sink) = &mut self.audio_sink {
            sink.samples(audio);
        }
        audio.clear();
    }
}
