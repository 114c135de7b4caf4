//! A renderer on its own thread, behind a crossbeam channel. Commands keep their order; reads
//! (readback, memory copies, the displayed picture) wait for every earlier command. The worker
//! makes the picture as it reaches a display command; [`Renderer::display_image`] (a CPU copy)
//! and [`Renderer::display_gpu`] (the renderer's own handle) collect it only when asked, so a
//! GPU renderer whose picture goes straight to a window never copies it back.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Sender, bounded};

use crossbeam_channel::Receiver;

use crate::draw::{DisplayCommand, DrawCommand, GpuHandle, MemCommand, Renderer};
use crate::image::Image;
use crate::mem::{LocalMemory, TransferRect};

enum Msg {
    Draw(Box<DrawCommand>),
    Mem(MemCommand),
    ReadBack(TransferRect, u64, u64, Sender<Vec<u8>>),
    Snapshot(Sender<Box<LocalMemory>>),
    Clut(Sender<Box<[u16; 512]>>),
    SamplePlanes(Sender<Vec<LocalMemory>>),
    Display(Box<DisplayCommand>),
    Picture(Sender<Image>),
    GpuPicture(Sender<Option<GpuHandle>>),
    Report(Sender<Option<String>>),
}

/// Host time the renderer's thread spent on commands, and the time its caller waited for it
/// (replies, or a full queue): for `--stats`, measured at the edge and never seen by the
/// emulated machine.
#[derive(Debug, Default)]
pub struct RenderTimes {
    busy_ns: AtomicU64,
    waited_ns: AtomicU64,
}

impl RenderTimes {
    /// Seconds the renderer's thread was busy.
    pub fn busy(&self) -> f64 {
        self.busy_ns.load(Ordering::Relaxed) as f64 * 1e-9
    }

    /// Seconds the caller waited for the renderer.
    pub fn waited(&self) -> f64 {
        self.waited_ns.load(Ordering::Relaxed) as f64 * 1e-9
    }

    fn add(counter: &AtomicU64, since: Instant) {
        counter.fetch_add(since.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}

/// Runs a [`Renderer`] on a worker thread. If the worker has died (a renderer panic), further
/// draws are dropped, reads return zeros, and [`ThreadedRenderer::failed`] says so.
pub struct ThreadedRenderer {
    tx: Option<Sender<Msg>>,
    handle: Option<JoinHandle<()>>,
    failed: bool,
    scale: u32,
    times: Arc<RenderTimes>,
}

/// Sets the calling thread's nice value. Best effort: a host that refuses leaves it as it is.
fn set_nice(nice: i32) {
    #[cfg(target_os = "linux")]
    // Allowed: setpriority only changes the scheduling weight of the calling thread (on Linux
    // the nice value is per thread, and `who` 0 names the caller); no memory is touched.
    #[allow(unsafe_code)]
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, nice);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

impl ThreadedRenderer {
    /// Starts the worker with `renderer`.
    pub fn new<R: Renderer + Send + 'static>(renderer: R) -> Self {
        Self::spawn(renderer, None)
    }

    /// Starts the worker with `renderer` on a thread at nice `nice` (on Linux, where the nice
    /// value is per thread; elsewhere, or where the host refuses, at the normal priority).
    /// For a window: where cores are short, the window's thread (the emulation, its pacing and
    /// presents) and the display server go first, and the renderer, whose pictures are
    /// presented a vblank after they are made, takes the rest. Nothing it draws changes.
    pub fn with_nice<R: Renderer + Send + 'static>(renderer: R, nice: i32) -> Self {
        Self::spawn(renderer, Some(nice))
    }

    fn spawn<R: Renderer + Send + 'static>(mut renderer: R, nice: Option<i32>) -> Self {
        let scale = renderer.scale();
        // A bounded queue: the producer waits when the renderer is this far behind.
        let (tx, rx) = bounded::<Msg>(4096);
        let times = Arc::new(RenderTimes::default());
        let busy = times.clone();
        let handle = std::thread::Builder::new()
            .name("piney-gs-render".into())
            .spawn(move || {
                if let Some(nice) = nice {
                    set_nice(nice);
                }
                for m in rx {
                    let started = Instant::now();
                    match m {
                        Msg::Draw(c) => renderer.draw(&c),
                        Msg::Mem(c) => renderer.memory(c),
                        Msg::ReadBack(r, s, n, reply) => {
                            let _ = reply.send(renderer.read_back(&r, s, n));
                        }
                        Msg::Snapshot(reply) => {
                            let _ = reply.send(renderer.read_memory());
                        }
                        Msg::Clut(reply) => {
                            let _ = reply.send(renderer.read_clut());
                        }
                        Msg::SamplePlanes(reply) => {
                            let _ = reply.send(renderer.read_sample_planes());
                        }
                        Msg::Display(cmd) => renderer.display(&cmd),
                        Msg::Picture(reply) => {
                            let _ = reply.send(renderer.display_image());
                        }
                        Msg::GpuPicture(reply) => {
                            let _ = reply.send(renderer.display_gpu());
                        }
                        Msg::Report(reply) => {
                            let _ = reply.send(renderer.report());
                        }
                    }
                    RenderTimes::add(&busy.busy_ns, started);
                }
            })
            .ok();
        let failed = handle.is_none();
        ThreadedRenderer {
            scale,
            tx: Some(tx),
            handle,
            failed,
            times,
        }
    }

    /// The host time the renderer's thread and its caller spent (see [`RenderTimes`]).
    pub fn times(&self) -> Arc<RenderTimes> {
        self.times.clone()
    }

    /// True once the worker could not be reached.
    pub fn failed(&self) -> bool {
        self.failed
    }

    fn send(&mut self, m: Msg) {
        if let Some(tx) = &self.tx {
            let started = Instant::now();
            let sent = match tx.try_send(m) {
                Ok(()) => Ok(()),
                // A full queue: the caller waits for the renderer.
                Err(crossbeam_channel::TrySendError::Full(m)) => {
                    let r = tx.send(m).map_err(|_| ());
                    RenderTimes::add(&self.times.waited_ns, started);
                    r
                }
                Err(_) => Err(()),
            };
            if sent.is_err() {
                self.failed = true;
            }
        }
    }

    /// Waits for a reply, counting the wait.
    fn wait<T>(&mut self, rx: &Receiver<T>) -> Option<T> {
        let started = Instant::now();
        let r = rx.recv().ok();
        RenderTimes::add(&self.times.waited_ns, started);
        if r.is_none() {
            self.failed = true;
        }
        r
    }
}

impl Renderer for ThreadedRenderer {
    fn scale(&self) -> u32 {
        self.scale
    }

    fn report(&mut self) -> Option<String> {
        self.ask_report()
    }

    fn draw(&mut self, cmd: &DrawCommand) {
        self.send(Msg::Draw(Box::new(*cmd)));
    }

    fn memory(&mut self, cmd: MemCommand) {
        self.send(Msg::Mem(cmd));
    }

    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        let (tx, rx) = bounded(1);
        self.send(Msg::ReadBack(*rect, start, count, tx));
        match self.wait(&rx) {
            Some(v) => v,
            None => LocalMemory::new().read_transfer(rect, start, count),
        }
    }

    fn read_memory(&mut self) -> Box<LocalMemory> {
        let (tx, rx) = bounded(1);
        self.send(Msg::Snapshot(tx));
        self.wait(&rx)
            .unwrap_or_else(|| Box::new(LocalMemory::new()))
    }

    fn read_clut(&mut self) -> Box<[u16; 512]> {
        let (tx, rx) = bounded(1);
        self.send(Msg::Clut(tx));
        self.wait(&rx).unwrap_or_else(|| Box::new([0; 512]))
    }

    fn read_sample_planes(&mut self) -> Vec<LocalMemory> {
        let (tx, rx) = bounded(1);
        self.send(Msg::SamplePlanes(tx));
        self.wait(&rx).unwrap_or_default()
    }

    fn display(&mut self, cmd: &DisplayCommand) {
        self.send(Msg::Display(Box::new(*cmd)));
    }

    fn display_image(&mut self) -> Image {
        let (tx, rx) = bounded(1);
        self.send(Msg::Picture(tx));
        self.wait(&rx).unwrap_or_else(|| Image::new(0, 0, [0; 4]))
    }

    fn display_gpu(&mut self) -> Option<GpuHandle> {
        let (tx, rx) = bounded(1);
        self.send(Msg::GpuPicture(tx));
        self.wait(&rx).flatten()
    }
}

impl ThreadedRenderer {
    /// The renderer's [`Renderer::report`], after every earlier command.
    fn ask_report(&mut self) -> Option<String> {
        let (tx, rx) = bounded(1);
        self.send(Msg::Report(tx));
        self.wait(&rx).flatten()
    }
}

impl Drop for ThreadedRenderer {
    fn drop(&mut self) {
        // Closing the channel ends the worker's loop.
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gs::{Gs, reg};
    use crate::psm::Psm;
    use crate::sw::SoftwareRenderer;

    fn scene<R: Renderer>(g: &mut Gs<R>) {
        g.write_reg(reg::FRAME_1, 1 << 16).unwrap();
        g.write_reg(reg::SCISSOR_1, 63 << 16 | (63u64 << 48))
            .unwrap();
        g.write_reg(reg::TEST_1, (1 << 16) | (1 << 17)).unwrap();
        g.write_reg(reg::PRIM, 3 | 1 << 3).unwrap();
        for (x, y, r) in [(0u64, 0u64, 0u64), (1000, 0, 255), (0, 1000, 100)] {
            g.write_reg(reg::RGBAQ, r | 0x80 << 24).unwrap();
            g.write_reg(reg::XYZ2, x | y << 16).unwrap();
        }
    }

    #[test]
    fn same_pictures_as_direct() {
        let mut direct = Gs::new(SoftwareRenderer::new());
        scene(&mut direct);
        let mut threaded = Gs::new(ThreadedRenderer::new(SoftwareRenderer::new()));
        scene(&mut threaded);
        assert!(threaded.local_memory() == direct.local_memory());
        assert_ne!(
            threaded.local_memory().read_pixel(Psm::Ct32, 10, 10, 0, 1),
            0
        );
        let rect = TransferRect {
            bp: 0,
            bw: 1,
            psm: Psm::Ct32,
            x: 0,
            y: 0,
            w: 8,
            h: 8,
        };
        assert_eq!(
            threaded.renderer_mut().read_back(&rect, 0, 64),
            direct.renderer_mut().read_back(&rect, 0, 64)
        );
        assert!(!threaded.renderer().failed());
    }

    /// Circuit 2 on a 64 x 64 PSMCT32 buffer at page 0.
    fn show<R: Renderer>(g: &mut Gs<R>) {
        use crate::gs::priv_reg;
        g.write_priv(priv_reg::PMODE, 2).unwrap();
        g.write_priv(priv_reg::DISPFB2, 1 << 9).unwrap();
        g.write_priv(priv_reg::DISPLAY2, 3 << 23 | 255u64 << 32 | 63u64 << 44)
            .unwrap();
    }

    #[test]
    fn a_display_command_is_answered_in_order_with_the_draws() {
        let mut direct = Gs::new(SoftwareRenderer::new());
        let mut threaded = Gs::new(ThreadedRenderer::new(SoftwareRenderer::new()));
        show(&mut direct);
        show(&mut threaded);
        // The picture before the scene is drawn is black; the one after shows it.
        let before = threaded.display(crate::Pcrtc::default());
        scene(&mut threaded);
        let empty = threaded.renderer_mut().display_image();
        scene(&mut direct);
        let after = threaded.display_image(crate::Pcrtc::default());
        assert_eq!(before.offset(), (0, 0));
        assert_eq!((empty.width, empty.height), (64, 64));
        assert!(empty.rgba.chunks(4).all(|p| p == [0, 0, 0, 255]));
        assert_eq!(after, direct.display_image(crate::Pcrtc::default()));
        assert_ne!(after, empty);
    }
}

#[cfg(test)]
mod boxed_tests {
    use crate::draw::Renderer;
    use crate::gs::{Gs, reg};
    use crate::psm::Psm;
    use crate::sw::SoftwareRenderer;
    use crate::threaded::ThreadedRenderer;

    #[test]
    fn renderers_chosen_at_run_time() {
        for threaded in [false, true] {
            let r: Box<dyn Renderer + Send> = if threaded {
                Box::new(ThreadedRenderer::new(SoftwareRenderer::new()))
            } else {
                Box::new(SoftwareRenderer::new())
            };
            let mut g = Gs::new(r);
            g.write_reg(reg::FRAME_1, 1 << 16).unwrap();
            g.write_reg(reg::SCISSOR_1, 63 << 16 | (63u64 << 48))
                .unwrap();
            g.write_reg(reg::TEST_1, 3 << 16).unwrap();
            g.write_reg(reg::PRIM, 6).unwrap();
            g.write_reg(reg::RGBAQ, 0x8012_3456).unwrap();
            g.write_reg(reg::XYZ2, 0).unwrap();
            g.write_reg(reg::XYZ2, 16 | 16 << 16).unwrap();
            assert_eq!(
                g.local_memory().read_pixel(Psm::Ct32, 0, 0, 0, 1),
                0x8012_3456
            );
        }
    }
}
