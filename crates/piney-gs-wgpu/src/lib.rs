//! The GS on wgpu: a [`piney_gs::Renderer`] whose local memory lives on the GPU.
//!
//! Contract:
//! - Local memory is one storage buffer of 1M u32 words in the GS's own swizzled layout, so
//!   render-to-texture, CLUT tricks, format reinterpretation and readbacks need no per-game
//!   handling; the CLUT buffer is a second one. Uploads, local->local copies and CLUT loads run as
//!   compute passes (`shaders/gs_memory.wgsl`), ported rule for rule from piney-gs's `mem` and
//!   `texel`.
//! - Draws are rasterised by compute (`shaders/gs_draw.wgsl`): the CPU computes coverage and
//!   interpolants with piney-gs's `raster` (exactly the numbers the software reference walks),
//!   packs them ([`pack`]) and bins them into 16 x 16 tiles; one workgroup a tile, one invocation
//!   a pixel, walks its primitives in order and runs the software renderer's per-pixel pipeline
//!   in integers. So at scale 1 every pixel equals the software renderer's.
//! - Draws queue in a batch until one would read pages the batch writes (or write pages it reads
//!   as a texture, or write the same pages through another layout); then the batch is drawn.
//!   A draw that samples the pages it writes depends on its own pixel order, which only the
//!   CPU reproduces: it is drawn by the software renderer's code over a copy of memory (counted
//!   in [`Stats::cpu_draws`]); so are copies whose rectangles overlap and uploads that wrap onto
//!   themselves.
//! - At `--render-scale N` the buffer holds the software renderer's N x N sample planes (plane 0
//!   is local memory as the guest sees it) and the shader runs on the fine grid by the same
//!   rules, so every plane equals the software reference's at every scale (DESIGN.md).
//! - Readback (the GS FIFO, a memory copy) and the CPU's draws work on a CPU copy of local
//!   memory kept page by page: only the pages the GPU wrote since the copy was last brought up
//!   to date are copied back (in every sample plane), and a command done on the CPU sends back
//!   only the pages it may write (a feedback draw's frame and Z pages), not all of memory
//!   (4 MiB a sample plane: 64 MiB each way at scale 4). Readback answers after every earlier
//!   command.
//! - The PCRTC runs on the GPU (`shaders/gs_pcrtc.wgsl`): a display command makes the picture
//!   from every sample plane into a buffer of its own, by piney-gs's [`PictureSetup`] and the
//!   CPU's merge arithmetic; only [`Renderer::display_image`] copies that picture (never local
//!   memory) back. A picture larger than a storage binding is made on the CPU instead (counted
//!   in [`Stats::cpu_pictures`]).
//! - No adapter: [`WgpuRenderer::new`] says why; the binary then falls back to the software
//!   renderer.

pub mod pack;

use std::sync::{Arc, Mutex};

use piney_gs::mem::{MEM_WORDS, TransferRect};
use piney_gs::pcrtc::PictureSetup;
use piney_gs::{DisplayCommand, DrawCommand, Image, LocalMemory, MemCommand, Renderer};

use pack::{Added, Batch};

/// The draw pass's WGSL (the common memory code first).
pub const DRAW_WGSL: &str = concat!(
    include_str!("../../../shaders/gs_common.wgsl"),
    include_str!("../../../shaders/gs_draw.wgsl")
);
/// The PCRTC pass's WGSL.
pub const PCRTC_WGSL: &str = concat!(
    include_str!("../../../shaders/gs_common.wgsl"),
    include_str!("../../../shaders/gs_pcrtc.wgsl")
);
/// The memory passes' WGSL.
pub const MEMORY_WGSL: &str = concat!(
    include_str!("../../../shaders/gs_common.wgsl"),
    include_str!("../../../shaders/gs_memory.wgsl")
);

/// Bytes of one sample plane of local memory.
const PLANE_BYTES: u64 = (MEM_WORDS * 4) as u64;
/// Bytes of one page of local memory (8 KiB; 512 pages a plane).
const PAGE_BYTES: u64 = 8192;
/// The first plane in the second buffer (`shaders/gs_common.wgsl`'s HI_WORDS).
const HI_PLANE: usize = 32;

/// Counters of what the renderer did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Draw dispatches (batches).
    pub batches: u64,
    /// Primitives drawn on the GPU.
    pub gpu_prims: u64,
    /// Primitives drawn on the CPU (feedback draws).
    pub cpu_draws: u64,
    /// Memory commands done on the CPU (overlapping copies, self-wrapping uploads).
    pub cpu_memory: u64,
    /// Times the CPU copy of local memory was brought up to date (the pages the GPU wrote
    /// since the last time).
    pub downloads: u64,
    /// Pictures the PCRTC made on the GPU.
    pub gpu_pictures: u64,
    /// Pictures made on the CPU (larger than a storage binding).
    pub cpu_pictures: u64,
    /// Pictures copied back to the CPU ([`Renderer::display_image`]).
    pub picture_reads: u64,
}

/// A growable storage buffer.
struct Grow {
    buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
}

impl Grow {
    fn new(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages) -> Grow {
        Grow {
            buffer: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 1 << 16,
                usage,
                mapped_at_creation: false,
            }),
            label,
            usage,
        }
    }

    /// Writes `words` at the start, growing first when they do not fit.
    fn write(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, words: &[u32]) {
        self.reserve(device, (words.len() * 4) as u64);
        if !words.is_empty() {
            queue.write_buffer(&self.buffer, 0, &as_bytes(words));
        }
    }

    /// Grows the buffer (its contents lost) to hold at least `bytes`.
    fn reserve(&mut self, device: &wgpu::Device, bytes: u64) {
        let bytes = bytes.max(4);
        if bytes > self.buffer.size() {
            self.buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(self.label),
                size: bytes.next_power_of_two(),
                usage: self.usage,
                mapped_at_creation: false,
            });
        }
    }
}

/// A picture on the GPU: what [`Renderer::display_gpu`] hands a presenter on the same device
/// (downcast from [`piney_gs::GpuHandle`]). The buffer holds `height` rows of `stride` RGBA8
/// pixels (R in the lowest byte), `width` of them shown; `stride * 4` is a multiple of 256, as
/// a buffer-to-texture copy needs. It keeps this size: a later picture of another size goes to
/// a new buffer, so a presenter copying from this one never reads a picture laid out otherwise.
#[derive(Clone, Debug)]
pub struct GpuPicture {
    /// The pixels (usage STORAGE | COPY_SRC).
    pub buffer: wgpu::Buffer,
    /// Pixels shown a row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Pixels from one row to the next (a multiple of 64).
    pub stride: u32,
    /// Which picture this is: a display command with the same registers and no draw or memory
    /// command since the last one shows the same picture under the same number (a presenter
    /// need not present it again).
    pub serial: u64,
}

/// The picture of the last display command: on the GPU, on the CPU, or both once copied; and
/// what made it (the commands so far and the display registers).
#[derive(Default)]
struct Shown {
    made_from: Option<(u64, DisplayCommand)>,
    gpu: Option<GpuPicture>,
    cpu: Option<Image>,
}

fn as_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The renderer.
pub struct WgpuRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: String,
    software: bool,
    vram: wgpu::Buffer,
    vram_hi: wgpu::Buffer,
    clut: wgpu::Buffer,
    staging: wgpu::Buffer,
    params: wgpu::Buffer,
    prims: Grow,
    tiles: Grow,
    data: Grow,
    draw: wgpu::ComputePipeline,
    upload: wgpu::ComputePipeline,
    copy: wgpu::ComputePipeline,
    load_clut: wgpu::ComputePipeline,
    pcrtc: wgpu::ComputePipeline,
    pcrtc_params: wgpu::Buffer,
    picture_staging: Grow,
    /// The largest picture buffer the device binds.
    max_picture_bytes: u64,
    batch: Batch,
    scale: u32,
    /// The CPU's copy for readback and CPU-side commands: equal to the GPU's but for the pages
    /// in `stale` (written on the GPU since, in every sample plane) and the CLUT when
    /// `clut_stale`. A readback copies only those back; a command run on the CPU sends back only
    /// the pages it may write.
    cpu: piney_gs::SoftwareRenderer,
    stale: pack::Pages,
    clut_stale: bool,
    shown: Shown,
    /// Draw and memory commands taken so far (what a picture was made from).
    commands: u64,
    /// The number of the last picture made ([`GpuPicture::serial`]).
    serial: u64,
    stats: Stats,
    error: Arc<Mutex<Option<String>>>,
}

impl WgpuRenderer {
    /// A renderer at scale 1 on the first adapter wgpu finds (backends follow
    /// `WGPU_BACKEND`), or why there is none.
    pub fn new() -> Result<WgpuRenderer, String> {
        Self::with_scale(1)
    }

    /// A renderer at render scale `scale` (1 to 8; the software renderer's sample planes, see
    /// `piney_gs::SoftwareRenderer`), or why it cannot be made.
    pub fn with_scale(scale: u32) -> Result<WgpuRenderer, String> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env());
        let adapter =
            pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
                .map_err(|e| format!("no GPU adapter: {e}"))?;
        let limits = Self::required_limits(&adapter, scale)?;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("piney-gs-wgpu"),
            required_limits: limits,
            ..Default::default()
        }))
        .map_err(|e| {
            format!(
                "{}: requesting a device: {e}",
                adapter_name(&adapter.get_info())
            )
        })?;
        let error = Arc::new(Mutex::new(None::<String>));
        let slot = error.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut s = slot.lock().unwrap_or_else(|p| p.into_inner());
            s.get_or_insert_with(|| e.to_string());
        }));
        Self::on_device(device, queue, &adapter.get_info(), scale, error)
    }

    /// The limits a device needs for a renderer at render scale `scale` (clamped to 1..8) on
    /// `adapter`: storage bindings for local memory's sample planes (4 MiB a plane, 256 MiB at
    /// 8x, in two bindings of at most 32 planes each), five storage buffers a shader; or why
    /// the adapter cannot give them.
    pub fn required_limits(adapter: &wgpu::Adapter, scale: u32) -> Result<wgpu::Limits, String> {
        let scale = scale.clamp(1, 8);
        let mem_bytes = (scale * scale) as u64 * PLANE_BYTES;
        let name = adapter_name(&adapter.get_info());
        let have = adapter.limits();
        // Local memory a sample plane: 4 MiB at 1x, 256 MiB at 8x, in two bindings of at most
        // 32 planes (128 MiB) each.
        let lo_bytes = mem_bytes.min(HI_PLANE as u64 * PLANE_BYTES);
        if have.max_storage_buffer_binding_size < lo_bytes
            || have.max_buffer_size < mem_bytes + 512 * 4
            || have.max_storage_buffers_per_shader_stage < 5
        {
            return Err(format!(
                "{name}: --render-scale {scale} needs {} MiB storage buffers (five a shader); the adapter allows {} MiB ({})",
                lo_bytes >> 20,
                have.max_storage_buffer_binding_size >> 20,
                have.max_storage_buffers_per_shader_stage
            ));
        }
        let mut limits = wgpu::Limits::downlevel_defaults().using_resolution(have.clone());
        limits.max_storage_buffer_binding_size =
            limits.max_storage_buffer_binding_size.max(lo_bytes);
        limits.max_buffer_size = limits.max_buffer_size.max(mem_bytes + 512 * 4);
        limits.max_storage_buffers_per_shader_stage = 5;
        Ok(limits)
    }

    /// A renderer at render scale `scale` on a device made with (at least)
    /// [`WgpuRenderer::required_limits`], shared with its maker: a window presenting the
    /// renderer's pictures straight from [`Renderer::display_gpu`] must be on the same device.
    /// `error` is where the device's uncaptured errors go (the maker's handler fills it);
    /// [`WgpuRenderer::check`] reads it.
    pub fn on_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: &wgpu::AdapterInfo,
        scale: u32,
        error: Arc<Mutex<Option<String>>>,
    ) -> Result<WgpuRenderer, String> {
        let scale = scale.clamp(1, 8);
        let planes = (scale * scale) as u64;
        let mem_bytes = planes * PLANE_BYTES;
        let lo_bytes = mem_bytes.min(HI_PLANE as u64 * PLANE_BYTES);
        let hi_bytes = (mem_bytes - lo_bytes).max(4);
        let name = adapter_name(info);
        let software = info.device_type == wgpu::DeviceType::Cpu;
        let have = device.limits();
        if have.max_storage_buffer_binding_size < lo_bytes
            || have.max_buffer_size < mem_bytes + 512 * 4
            || have.max_storage_buffers_per_shader_stage < 5
        {
            return Err(format!(
                "{name}: the device was made without the limits --render-scale {scale} needs"
            ));
        }
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let vram = buffer(
            "local memory",
            lo_bytes,
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let vram_hi = buffer(
            "local memory, planes 32-63",
            hi_bytes,
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let clut = buffer("clut", 512 * 4, storage | wgpu::BufferUsages::COPY_SRC);
        let staging = buffer(
            "readback",
            mem_bytes + 512 * 4,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let params = buffer(
            "memory params",
            64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let module = |label, src: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(src.into()),
            })
        };
        let draw_module = module("gs_draw.wgsl", DRAW_WGSL);
        let memory_module = module("gs_memory.wgsl", MEMORY_WGSL);
        let pcrtc_module = module("gs_pcrtc.wgsl", PCRTC_WGSL);
        let split = [("SPLIT", if planes > HI_PLANE as u64 { 1.0 } else { 0.0 })];
        let pipeline = |m: &wgpu::ShaderModule, entry| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: None,
                module: m,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &split,
                    ..Default::default()
                },
                cache: None,
            })
        };
        let r = WgpuRenderer {
            draw: pipeline(&draw_module, "draw"),
            upload: pipeline(&memory_module, "upload"),
            copy: pipeline(&memory_module, "copy"),
            load_clut: pipeline(&memory_module, "load_clut"),
            pcrtc: pipeline(&pcrtc_module, "pcrtc"),
            pcrtc_params: buffer(
                "pcrtc params",
                PCRTC_PARAMS as u64 * 4,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            picture_staging: Grow::new(
                &device,
                "picture readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            max_picture_bytes: device.limits().max_storage_buffer_binding_size,
            prims: Grow::new(&device, "primitives", storage),
            tiles: Grow::new(&device, "tiles", storage),
            data: Grow::new(&device, "upload data", storage),
            device,
            queue,
            adapter: name,
            software,
            vram,
            vram_hi,
            clut,
            staging,
            params,
            batch: Batch::new(scale),
            scale,
            cpu: piney_gs::SoftwareRenderer::with_scale(scale),
            stale: pack::Pages::default(),
            clut_stale: false,
            shown: Shown::default(),
            commands: 0,
            serial: 0,
            stats: Stats::default(),
            error,
        };
        r.check()?;
        Ok(r)
    }

    /// True on a software adapter (lavapipe, llvmpipe, WARP).
    pub fn is_software(&self) -> bool {
        self.software
    }

    /// The adapter's name and backend.
    pub fn adapter(&self) -> &str {
        &self.adapter
    }

    fn planes(&self) -> usize {
        (self.scale * self.scale) as usize
    }

    /// What the renderer did so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The first GPU error since the last check, if any.
    pub fn check(&self) -> Result<(), String> {
        let mut s = self.error.lock().unwrap_or_else(|p| p.into_inner());
        match s.take() {
            Some(e) => Err(format!("{}: {e}", self.adapter)),
            None => Ok(()),
        }
    }

    fn bind(
        &self,
        pipeline: &wgpu::ComputePipeline,
        entries: &[(u32, &wgpu::Buffer)],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .map(|(binding, b)| wgpu::BindGroupEntry {
                binding: *binding,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    fn dispatch(
        &self,
        pipeline: &wgpu::ComputePipeline,
        group: &wgpu::BindGroup,
        groups: (u32, u32),
    ) {
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, 1);
        }
        self.queue.submit([enc.finish()]);
    }

    /// Draws the queued batch.
    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        self.stats.batches += 1;
        self.stats.gpu_prims += self.batch.prims as u64;
        self.prims
            .write(&self.device, &self.queue, &self.batch.words);
        self.stale.union(&self.batch.written());
        let (tiles, n) = self.batch.take_tiles();
        self.tiles.write(&self.device, &self.queue, &tiles);
        let group = self.bind(
            &self.draw,
            &[
                (0, &self.vram),
                (5, &self.vram_hi),
                (1, &self.clut),
                (2, &self.prims.buffer),
                (3, &self.tiles.buffer),
            ],
        );
        let t = std::time::Instant::now();
        let listed = tiles.len();
        self.dispatch(&self.draw, &group, Self::grid(n as u64));
        if std::env::var_os("PINEY_WGPU_TRACE").is_some() {
            let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
            eprintln!(
                "batch: {n} tiles, {listed} list words, {} prim words: {:?}",
                self.batch.words.len(),
                t.elapsed()
            );
        }
    }

    /// Brings the CPU copy (memory and CLUT) up to date: the pages the GPU wrote since, in
    /// every sample plane, and the CLUT if the GPU loaded it.
    fn download(&mut self) {
        self.flush();
        if self.stale.is_empty() && !self.clut_stale {
            return;
        }
        self.stats.downloads += 1;
        let runs = self.stale.runs();
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let mem_bytes = self.planes() as u64 * PLANE_BYTES;
        for k in 0..self.planes() {
            let (buffer, at) = plane_in(&self.vram, &self.vram_hi, k);
            for &(first, end) in &runs {
                let (from, len) = (first as u64 * PAGE_BYTES, (end - first) as u64 * PAGE_BYTES);
                let to = k as u64 * PLANE_BYTES + from;
                enc.copy_buffer_to_buffer(buffer, at + from, &self.staging, to, len);
            }
        }
        if self.clut_stale {
            enc.copy_buffer_to_buffer(&self.clut, 0, &self.staging, mem_bytes, 512 * 4);
        }
        self.queue.submit([enc.finish()]);
        let slice = self.staging.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        match slice.get_mapped_range() {
            Err(e) => {
                let mut s = self.error.lock().unwrap_or_else(|p| p.into_inner());
                s.get_or_insert_with(|| format!("reading local memory back: {e}"));
            }
            Ok(view) => {
                let plane_bytes = MEM_WORDS * 4;
                let page_words = PAGE_BYTES as usize / 4;
                for (k, plane) in self.cpu.planes_mut().iter_mut().enumerate() {
                    let words = plane.words_mut();
                    for &(first, end) in &runs {
                        let (w0, w1) = (first as usize * page_words, end as usize * page_words);
                        let src = &view[k * plane_bytes + w0 * 4..k * plane_bytes + w1 * 4];
                        for (w, b) in words[w0..w1].iter_mut().zip(src.chunks_exact(4)) {
                            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                        }
                    }
                }
                if self.clut_stale {
                    let mut clut = [0u16; 512];
                    for (c, b) in clut
                        .iter_mut()
                        .zip(view[mem_bytes as usize..].chunks_exact(4))
                    {
                        *c = u16::from_le_bytes([b[0], b[1]]);
                    }
                    self.cpu.set_clut(&clut);
                }
            }
        }
        self.staging.unmap();
        self.stale = pack::Pages::default();
        self.clut_stale = false;
    }

    /// Sends the CPU copy (after a CPU-side command) back to the GPU.
    fn upload_all(&mut self) {
        self.upload(&pack::Pages::all(), true);
    }

    /// Sends pages `pages` of every sample plane of the CPU copy, and the CLUT when `clut`, to
    /// the GPU.
    fn upload(&mut self, pages: &pack::Pages, clut: bool) {
        let runs = pages.runs();
        let page_words = PAGE_BYTES as usize / 4;
        for k in 0..self.planes() {
            let (buffer, at) = plane_in(&self.vram, &self.vram_hi, k);
            let words = self.cpu.planes_mut()[k].words();
            for &(first, end) in &runs {
                let (w0, w1) = (first as usize * page_words, end as usize * page_words);
                self.queue
                    .write_buffer(buffer, at + w0 as u64 * 4, &as_bytes(&words[w0..w1]));
            }
        }
        if clut {
            let clut: Vec<u32> = self.cpu.clut().iter().map(|&c| c as u32).collect();
            self.queue.write_buffer(&self.clut, 0, &as_bytes(&clut));
        }
    }

    /// Runs `f` on the CPU copy (brought up to date first) and sends back `pages`, the pages
    /// of local memory `f` may write.
    fn on_cpu(&mut self, pages: pack::Pages, f: impl FnOnce(&mut piney_gs::SoftwareRenderer)) {
        self.download();
        f(&mut self.cpu);
        self.upload(&pages, false);
    }

    fn set_params(&self, words: &[u32]) {
        let mut p = [0u32; 16];
        p[..words.len()].copy_from_slice(words);
        self.queue.write_buffer(&self.params, 0, &as_bytes(&p));
    }

    /// Workgroups of 64 invocations for `n` items, as the memory shaders index them.
    fn groups(n: u64) -> (u32, u32) {
        Self::grid(n.div_ceil(64))
    }

    /// `g` workgroups as a grid within the 65535-a-dimension limit.
    fn grid(g: u64) -> (u32, u32) {
        let g = g.max(1);
        let x = g.min(65535);
        (x as u32, g.div_ceil(x) as u32)
    }

    /// Waits until the device has done every command submitted so far (a benchmark's frame
    /// time, when the picture stays on the GPU as a window's does).
    pub fn wait(&mut self) {
        self.flush();
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// Every sample plane of local memory (one at scale 1), after every earlier command.
    pub fn read_planes(&mut self) -> Vec<LocalMemory> {
        self.download();
        self.cpu.planes_mut().to_vec()
    }

    /// A buffer for a picture of `bytes`.
    fn picture_buffer(&self, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("picture"),
            size: bytes.max(4),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Copies picture `p` back.
    fn read_picture(&mut self, p: &GpuPicture) -> Image {
        self.stats.picture_reads += 1;
        let (width, height, stride) = (p.width, p.height, p.stride);
        let bytes = stride as u64 * height as u64 * 4;
        self.picture_staging.reserve(&self.device, bytes);
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        enc.copy_buffer_to_buffer(&p.buffer, 0, &self.picture_staging.buffer, 0, bytes);
        self.queue.submit([enc.finish()]);
        let slice = self.picture_staging.buffer.slice(..bytes);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let mut image = Image::new(width, height, [0, 0, 0, 255]);
        match slice.get_mapped_range() {
            Err(e) => {
                let mut s = self.error.lock().unwrap_or_else(|p| p.into_inner());
                s.get_or_insert_with(|| format!("reading the picture back: {e}"));
            }
            Ok(view) => {
                let row = width as usize * 4;
                for (y, out) in image.rgba.chunks_exact_mut(row).enumerate() {
                    let at = y * stride as usize * 4;
                    out.copy_from_slice(&view[at..at + row]);
                }
            }
        }
        self.picture_staging.buffer.unmap();
        image
    }

    fn host_to_local(&mut self, rect: TransferRect, start: u64, data: Vec<u8>) {
        let bits = rect.psm.transfer_bits() as u64;
        let count = (data.len() as u64 * 8 / bits).min(rect.pixels().saturating_sub(start));
        if count == 0 {
            return;
        }
        if may_alias(&rect, start + count) {
            self.stats.cpu_memory += 1;
            let pages = rect_pages(&rect);
            self.on_cpu(pages, |r| {
                r.memory(MemCommand::HostToLocal { rect, start, data })
            });
            return;
        }
        self.flush();
        let mut words: Vec<u32> = data
            .chunks(4)
            .map(|c| {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(b)
            })
            .collect();
        // 24-bit pixels may read one word past the last.
        words.push(0);
        self.data.write(&self.device, &self.queue, &words);
        self.set_params(&[
            rect.bp,
            rect.bw,
            rect.psm.code() as u32,
            rect.x,
            rect.y,
            rect.w,
            rect.h,
            start as u32,
            count as u32,
            0,
            0,
            0,
            0,
            0,
            self.scale * self.scale,
        ]);
        let group = self.bind(
            &self.upload,
            &[
                (0, &self.vram),
                (5, &self.vram_hi),
                (1, &self.params),
                (2, &self.data.buffer),
            ],
        );
        self.dispatch(&self.upload, &group, Self::groups(count));
        self.stale.union(&rect_pages(&rect));
    }

    fn local_to_local(&mut self, src: TransferRect, dst: TransferRect, dir: u32) {
        let n = dst.pixels();
        if n == 0 {
            return;
        }
        let src_rect = TransferRect {
            w: dst.w,
            h: dst.h,
            ..src
        };
        let overlap = may_alias(&src_rect, n)
            || may_alias(&dst, n)
            || rect_pages(&src_rect).overlaps(&rect_pages(&dst));
        if overlap {
            self.stats.cpu_memory += 1;
            self.on_cpu(rect_pages(&dst), |r| {
                r.memory(MemCommand::LocalToLocal { src, dst, dir })
            });
            return;
        }
        self.flush();
        self.set_params(&[
            dst.bp,
            dst.bw,
            dst.psm.code() as u32,
            dst.x,
            dst.y,
            dst.w,
            dst.h,
            0,
            n as u32,
            src.bp,
            src.bw,
            src.psm.code() as u32,
            src.x,
            src.y,
            self.scale * self.scale,
        ]);
        let group = self.bind(
            &self.copy,
            &[(0, &self.vram), (5, &self.vram_hi), (1, &self.params)],
        );
        self.dispatch(&self.copy, &group, Self::groups(n));
        self.stale.union(&rect_pages(&dst));
    }

    fn clut_load(&mut self, tex0: piney_gs::regs::Tex0, texclut: piney_gs::regs::TexClut) {
        self.flush();
        self.set_params(&[
            piney_gs::texel::texture_psm(tex0.psm()).code() as u32,
            piney_gs::texel::clut_psm(tex0.cpsm()).code() as u32,
            tex0.cbp(),
            tex0.csm(),
            tex0.csa(),
            texclut.cou(),
            texclut.cov(),
            texclut.cbw(),
        ]);
        let group = self.bind(
            &self.load_clut,
            &[
                (0, &self.vram),
                (5, &self.vram_hi),
                (1, &self.params),
                (3, &self.clut),
            ],
        );
        self.dispatch(&self.load_clut, &group, (4, 1));
        self.clut_stale = true;
    }
}

/// Words of the PCRTC pass's parameters (`shaders/gs_pcrtc.wgsl`).
const PCRTC_PARAMS: usize = 36;

/// `setup` as the PCRTC pass reads it, for a picture at `scale` with rows `stride` pixels apart.
fn pcrtc_params(setup: &PictureSetup, scale: u32, stride: u32) -> [u32; PCRTC_PARAMS] {
    let mut w = [0u32; PCRTC_PARAMS];
    let mut flags = 0;
    if setup.top.is_some() {
        flags |= 1;
    }
    if setup.back.is_some() && setup.back_from_circuit {
        flags |= 2;
    }
    if setup.alpha.is_some() {
        flags |= 4;
    }
    let [r, g, b, _] = setup.bg;
    w[..11].copy_from_slice(&[
        setup.width * scale,
        setup.height * scale,
        scale,
        stride,
        flags,
        setup.alpha.unwrap_or(0),
        r as u32 | (g as u32) << 8 | (b as u32) << 16,
        setup.x0 as u32,
        setup.y0 as u32,
        setup.clock_step as u32,
        setup.line_step as u32,
    ]);
    for (c, circuit) in [setup.top, setup.back].into_iter().enumerate() {
        if let Some(k) = circuit {
            w[12 + 11 * c..23 + 11 * c].copy_from_slice(&[
                k.x0 as u32,
                k.x1 as u32,
                k.y0 as u32,
                k.y1 as u32,
                k.clock_step as u32,
                k.line_step as u32,
                k.dbx,
                k.dby,
                k.bp,
                k.fbw,
                k.psm.code() as u32,
            ]);
        }
    }
    w
}

/// An adapter's name and backend, as messages give it.
fn adapter_name(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?})", info.name, info.backend)
}

/// The buffer holding sample plane `k` and where the plane starts in it: `vram` holds the
/// planes below [`HI_PLANE`], `vram_hi` the rest.
fn plane_in<'a>(
    vram: &'a wgpu::Buffer,
    vram_hi: &'a wgpu::Buffer,
    k: usize,
) -> (&'a wgpu::Buffer, u64) {
    if k < HI_PLANE {
        (vram, k as u64 * PLANE_BYTES)
    } else {
        (vram_hi, (k - HI_PLANE) as u64 * PLANE_BYTES)
    }
}

/// The pages of a transfer rectangle.
fn rect_pages(r: &TransferRect) -> pack::Pages {
    if r.x + r.w > 2048 || r.y + r.h > 2048 {
        return pack::Pages::all();
    }
    pack::Pages::of_rect(r.psm, r.bp, r.bw, (r.x, r.x + r.w), (r.y, r.y + r.h))
}

/// True when pixels `..end` of `r` may land on the same address twice (coordinates wrapping
/// at 2048, or a buffer running past the end of memory), so their order matters.
fn may_alias(r: &TransferRect, end: u64) -> bool {
    let rows = end.div_ceil(r.w.max(1) as u64);
    if r.w > 2048 || r.y as u64 + rows > 2048 || r.x + r.w > 2048 {
        return true;
    }
    let (pw, ph) = r.psm.page_size();
    let row = if pw == 128 { r.bw >> 1 } else { r.bw };
    let last_page =
        ((r.y as u64 + rows - 1) / ph as u64) * row as u64 + ((r.x + r.w - 1) / pw) as u64;
    // Past the last page the block number wraps to the start of memory.
    r.bp as u64 + last_page * 32 + 32 > 16384 || (row == 0 && rows > ph as u64)
}

impl Renderer for WgpuRenderer {
    fn draw(&mut self, cmd: &DrawCommand) {
        self.commands += 1;
        loop {
            match self.batch.add(cmd) {
                Added::Yes => return,
                Added::Flush => self.flush(),
                Added::Feedback(pages) => {
                    self.stats.cpu_draws += 1;
                    self.on_cpu(pages, |r| r.draw(cmd));
                    return;
                }
            }
        }
    }

    fn memory(&mut self, cmd: MemCommand) {
        self.commands += 1;
        match cmd {
            MemCommand::HostToLocal { rect, start, data } => self.host_to_local(rect, start, data),
            MemCommand::LocalToLocal { src, dst, dir } => self.local_to_local(src, dst, dir),
            MemCommand::LoadClut { tex0, texclut } => self.clut_load(tex0, texclut),
            MemCommand::SetMemory(m) => {
                // The CPU copy's CLUT must be current before the copies are called equal.
                self.download();
                for p in self.cpu.planes_mut() {
                    *p = (*m).clone();
                }
                self.upload_all();
            }
            MemCommand::SetSamplePlanes(planes) => {
                if planes.len() + 1 == self.planes() {
                    self.download();
                    for (p, m) in self.cpu.planes_mut()[1..].iter_mut().zip(planes) {
                        *p = m;
                    }
                    self.upload_all();
                }
            }
            MemCommand::SetClut(c) => {
                self.download();
                self.cpu.set_clut(&c);
                self.upload_all();
            }
            MemCommand::PowerOn => {
                self.batch.discard();
                self.cpu.memory(MemCommand::PowerOn);
                self.upload_all();
                self.stale = pack::Pages::default();
                self.clut_stale = false;
            }
        }
    }

    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        self.download();
        self.cpu.mem().read_transfer(rect, start, count)
    }

    fn read_memory(&mut self) -> Box<LocalMemory> {
        self.download();
        Box::new(self.cpu.mem().clone())
    }

    fn read_sample_planes(&mut self) -> Vec<LocalMemory> {
        self.download();
        self.cpu.planes_mut()[1..].to_vec()
    }

    fn read_clut(&mut self) -> Box<[u16; 512]> {
        self.download();
        Box::new(*self.cpu.clut())
    }

    fn display(&mut self, cmd: &DisplayCommand) {
        // Nothing drawn or written since a picture of the same registers: the same picture.
        let made_from = Some((self.commands, *cmd));
        if self.shown.made_from == made_from {
            return;
        }
        self.flush();
        // The buffer of the last picture, reused when this one has its size.
        let last = std::mem::take(&mut self.shown).gpu;
        self.shown.made_from = made_from;
        self.serial += 1;
        let Some(setup) = PictureSetup::new(cmd) else {
            return;
        };
        let (width, height) = (setup.width * self.scale, setup.height * self.scale);
        if width == 0 || height == 0 {
            return;
        }
        // Rows of a multiple of 64 pixels (256 bytes), the row alignment of a buffer-to-texture
        // copy.
        let stride = width.next_multiple_of(64);
        let bytes = stride as u64 * height as u64 * 4;
        if bytes > self.max_picture_bytes || width.div_ceil(8) > 65535 || height.div_ceil(8) > 65535
        {
            self.stats.cpu_pictures += 1;
            self.download();
            self.shown.cpu = Some(piney_gs::pcrtc::scaled_picture(
                self.cpu.planes_mut(),
                self.scale,
                cmd,
            ));
            return;
        }
        self.stats.gpu_pictures += 1;
        let words = pcrtc_params(&setup, self.scale, stride);
        self.queue
            .write_buffer(&self.pcrtc_params, 0, &as_bytes(&words));
        let picture = match last {
            Some(p) if (p.width, p.height) == (width, height) => p,
            _ => GpuPicture {
                buffer: self.picture_buffer(bytes),
                width,
                height,
                stride,
                serial: 0,
            },
        };
        let picture = GpuPicture {
            serial: self.serial,
            ..picture
        };
        let group = self.bind(
            &self.pcrtc,
            &[
                (0, &self.vram),
                (5, &self.vram_hi),
                (1, &self.pcrtc_params),
                (2, &picture.buffer),
            ],
        );
        self.dispatch(&self.pcrtc, &group, (width.div_ceil(8), height.div_ceil(8)));
        self.shown.gpu = Some(picture);
    }

    fn scale(&self) -> u32 {
        self.scale
    }

    fn report(&mut self) -> Option<String> {
        self.flush();
        let s = self.stats;
        Some(format!(
            "wgpu on {}: {} primitives in {} batches, {} drawn on the CPU (feedback); {} memory \
             commands on the CPU; {} pictures made on the GPU, {} on the CPU, {} copied back; {} \
             copies of local memory back",
            self.adapter,
            s.gpu_prims,
            s.batches,
            s.cpu_draws,
            s.cpu_memory,
            s.gpu_pictures,
            s.cpu_pictures,
            s.picture_reads,
            s.downloads
        ))
    }

    fn display_image(&mut self) -> Image {
        if self.shown.cpu.is_none()
            && let Some(p) = self.shown.gpu.clone()
        {
            self.shown.cpu = Some(self.read_picture(&p));
        }
        match &self.shown.cpu {
            Some(image) => image.clone(),
            None => Image::new(0, 0, [0; 4]),
        }
    }

    fn display_gpu(&mut self) -> Option<piney_gs::GpuHandle> {
        if self.shown.gpu.is_none()
            && let Some(image) = &self.shown.cpu
        {
            // A picture made on the CPU goes up once, laid out as the PCRTC pass lays it out.
            let stride = image.width.next_multiple_of(64);
            let buffer = self.picture_buffer(stride as u64 * image.height as u64 * 4);
            let row = image.width as usize * 4;
            let mut bytes = vec![0u8; stride as usize * 4 * image.height as usize];
            for (y, src) in image.rgba.chunks_exact(row).enumerate() {
                let at = y * stride as usize * 4;
                bytes[at..at + row].copy_from_slice(src);
            }
            self.queue.write_buffer(&buffer, 0, &bytes);
            self.shown.gpu = Some(GpuPicture {
                buffer,
                width: image.width,
                height: image.height,
                stride,
                serial: self.serial,
            });
        }
        let p = self.shown.gpu.clone()?;
        Some(Arc::new(p))
    }
}

#[cfg(test)]
mod tests {
    use piney_gs::scenes::{first_difference, replay, scene};

    /// 60 blended 8 x 8 sprites, two over each of 30 cells of a 128 x 128 frame (so their
    /// order shows), each one 16 x 16 tile at scale 2: one batch without a limit.
    fn sprites() -> Vec<piney_gs::scenes::Cmd> {
        use piney_gs::gs::reg;
        let mut g = piney_gs::Gs::new(piney_gs::scenes::Recorder::default());
        for (r, v) in [
            (reg::FRAME_1, 2 << 16),                 // page 0, 128 pixels wide, PSMCT32
            (reg::ZBUF_1, 1 << 32),                  // ZMSK: no Z written
            (reg::SCISSOR_1, 127 << 16 | 127 << 48), // 0..127 both ways
            (reg::ALPHA_1, 0x44),                    // (Cs - Cd) * As >> 7 + Cd
            (reg::TEST_1, 1 << 16 | 1 << 17),        // ZTE, ZTST always
            (reg::PRIM, 6 | 1 << 6),                 // sprite, ABE
        ] {
            g.write_reg(r, v).unwrap();
        }
        for i in 0..60u64 {
            let (x, y) = ((i % 10) * 8, (i / 10 % 3) * 8);
            let rgba = ((i * 40) & 0xff) | (255 - i * 4) << 8 | ((i * 9) & 0xff) << 16 | 0x40 << 24;
            g.write_reg(reg::RGBAQ, rgba).unwrap();
            g.write_reg(reg::XYZ2, x << 4 | y << 20).unwrap();
            g.write_reg(reg::XYZ2, (x + 8) << 4 | (y + 8) << 20)
                .unwrap();
        }
        g.into_renderer().0
    }

    /// Batches drawn before their tile lists would exceed a limit draw what whole batches
    /// draw, in order: the sprites above in one batch, in two of at most 40 entries and one at
    /// a time, and random scenes with a limit of 40 entries (a few primitives) and of one, all
    /// equal to the software renderer.
    #[test]
    fn batches_split_by_their_tile_lists_draw_the_same() {
        let scale = 2;
        let gpu = |limit| {
            let mut gpu = super::WgpuRenderer::with_scale(scale).unwrap_or_else(|e| {
                panic!("no wgpu adapter ({e}); install mesa-vulkan-drivers for lavapipe")
            });
            gpu.batch = super::pack::Batch::with_list_limit(scale, limit);
            gpu
        };
        let check = |gpu: &mut super::WgpuRenderer, cmds: &[piney_gs::scenes::Cmd]| {
            let mut sw = piney_gs::SoftwareRenderer::with_scale(scale);
            let sw_reads = replay(&mut sw, cmds);
            assert_eq!(replay(gpu, cmds), sw_reads, "readbacks differ");
            gpu.check().unwrap();
            if let Some(d) = first_difference(sw.planes_mut(), &gpu.read_planes()) {
                panic!("{d}");
            }
            gpu.stats()
        };
        for (limit, batches) in [(usize::MAX, 1), (40, 2), (1, 60)] {
            let s = check(&mut gpu(limit), &sprites());
            assert_eq!((s.gpu_prims, s.batches), (60, batches), "limit {limit}");
        }
        for limit in [40, 1] {
            let mut gpu = gpu(limit);
            for seed in 300..303 {
                check(&mut gpu, &scene(seed, 50, false));
            }
        }
    }

    /// Every WGSL file parses and validates with naga (no device needed).
    #[test]
    fn shaders_validate() {
        for (name, src) in [
            ("draw", super::DRAW_WGSL),
            ("memory", super::MEMORY_WGSL),
            ("pcrtc", super::PCRTC_WGSL),
        ] {
            let module = naga::front::wgsl::parse_str(src)
                .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
        }
    }
}
