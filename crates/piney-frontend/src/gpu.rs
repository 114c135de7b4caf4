//! The wgpu presenter: the frame as a texture, drawn by `shaders/present.wgsl` into a window's
//! surface or an offscreen texture that is read back ([`Headless`]).
//!
//! Filtering is nearest neighbour, done by integer arithmetic in the shader (no sampler): the
//! emulated picture keeps its pixels sharp, and the window shows exactly the colours the
//! headless path and the CPU reference ([`crate::reference`]) give, so tests compare them
//! bit for bit. Targets are written through a non-sRGB view, so a value of 200 shows as 200.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, mpsc};

use crate::error::FrontendError;
use crate::frame::Frame;
use crate::layout::{Filter, Scaling, picture_rect};

/// The presenter's WGSL, validated by naga in this crate's tests.
pub const PRESENT_WGSL: &str = include_str!("../../../shaders/present.wgsl");
/// The on-screen display's WGSL (validated with the others).
pub const OSD_WGSL: &str = include_str!("../../../shaders/osd.wgsl");

/// Packages that give wgpu a software adapter on Debian, for error messages.
pub const GPU_PACKAGES: &str =
    "mesa-vulkan-drivers libvulkan1 (Vulkan, lavapipe) or libegl1 libgl1-mesa-dri (GL, llvmpipe)";

/// A wgpu device and queue, with validation errors collected instead of panicking.
#[derive(Clone)]
pub struct Gpu {
    pub(crate) instance: wgpu::Instance,
    pub(crate) adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    error: Arc<Mutex<Option<String>>>,
}

impl Gpu {
    /// A device with no surface (for [`Headless`]). Backends follow `WGPU_BACKEND` when set.
    pub fn headless() -> Result<Gpu, FrontendError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env());
        Gpu::with_instance(instance, None)
    }

    /// A device on `instance` able to present to `surface` when given.
    pub(crate) fn with_instance(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Gpu, FrontendError> {
        Gpu::open(instance, surface, "piney", |adapter| {
            Ok(wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits()))
        })
    }

    /// A device on `instance` (able to present to `surface` when given) with the limits
    /// `limits` gives for the adapter found; its uncaptured errors collected.
    fn open(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
        label: &'static str,
        limits: impl FnOnce(&wgpu::Adapter) -> Result<wgpu::Limits, String>,
    ) -> Result<Gpu, FrontendError> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: surface,
            ..Default::default()
        }))
        .map_err(|e| {
            FrontendError::NoAdapter(format!("{e}; install {GPU_PACKAGES} for a software one"))
        })?;
        let required_limits = limits(&adapter).map_err(FrontendError::Gpu)?;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some(label),
            required_limits,
            ..Default::default()
        }))
        .map_err(|e| FrontendError::Gpu(format!("requesting a device: {e}")))?;
        let error = Arc::new(Mutex::new(None::<String>));
        let slot = error.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut s = slot.lock().unwrap_or_else(|p| p.into_inner());
            s.get_or_insert_with(|| e.to_string());
        }));
        Ok(Gpu {
            instance,
            adapter,
            device,
            queue,
            error,
        })
    }

    /// The adapter's name and backend, for logs and test messages.
    pub fn adapter_info(&self) -> String {
        let i = self.adapter.get_info();
        format!("{} ({:?}, {:?})", i.name, i.backend, i.device_type)
    }

    /// The first GPU error since the last check, if any.
    pub(crate) fn check(&self, what: &str) -> Result<(), FrontendError> {
        let mut s = self.error.lock().unwrap_or_else(|p| p.into_inner());
        match s.take() {
            Some(e) => Err(FrontendError::Gpu(format!("{what}: {e}"))),
            None => Ok(()),
        }
    }
}

/// A device for a window and the emulator's GPU renderer together, so that the renderer's
/// pictures reach the window without a CPU copy ([`crate::Frame::on_gpu`]). Made before the
/// window (the renderer draws from the first vertical blank); the window then makes its surface
/// on the same instance and uses this device when the adapter can present to it, and says so
/// through [`crate::Emulator::gpu_frames`]. Backends follow `WGPU_BACKEND`.
#[derive(Clone)]
pub struct SharedGpu(pub(crate) Gpu);

impl SharedGpu {
    /// A device with the limits `limits` gives for the adapter found (the renderer's needs;
    /// the presenter's are less), or why there is none.
    pub fn new(
        limits: impl FnOnce(&wgpu::Adapter) -> Result<wgpu::Limits, String>,
    ) -> Result<SharedGpu, FrontendError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env());
        Gpu::open(instance, None, "piney (window and renderer)", limits).map(SharedGpu)
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.0.device
    }

    /// Its queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.0.queue
    }

    /// The adapter's description.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.0.adapter.get_info()
    }

    /// Where the device's uncaptured errors go (the first since it was last emptied).
    pub fn error_slot(&self) -> Arc<Mutex<Option<String>>> {
        self.0.error.clone()
    }
}

/// The frame texture and its bind group.
struct FrameTexture {
    texture: wgpu::Texture,
    bind_group: wgpu::BindGroup,
    /// The frame as the second pass's source (a frame without offset or deflicker).
    direct: wgpu::BindGroup,
    size: (u32, u32),
}

/// What the shader is told about the frame.
#[derive(Clone, Copy, Debug, Default)]
struct FrameParams {
    size: (u32, u32),
    offset: (i32, i32),
    deflicker: u8,
}

/// Draws frames with `shaders/present.wgsl` into targets of one format.
pub struct Presenter {
    /// The first pass's pipeline (`fs_picture`) without and with the deflicker, made when
    /// first drawn with.
    picture_pipelines: [Option<wgpu::RenderPipeline>; 2],
    /// The second pass's (`fs_main`) per filter (nearest, sharp).
    pipelines: [Option<wgpu::RenderPipeline>; 2],
    format: wgpu::TextureFormat,
    axes_layout: wgpu::BindGroupLayout,
    layout: wgpu::BindGroupLayout,
    picture_layout: wgpu::BindGroupLayout,
    uniforms: wgpu::Buffer,
    texture: Option<FrameTexture>,
    params: FrameParams,
    /// Frames uploaded so far: the first pass runs once per frame.
    uploads: u64,
    osd: OsdLayer,
    scaling: Scaling,
    axes: AxisTables,
    picture: Option<PictureTexture>,
}

/// The first pass's target, read by the second: the picture at the frame's size, the display
/// offset and the deflicker applied.
struct PictureTexture {
    texture: wgpu::Texture,
    bind_group: wgpu::BindGroup,
    /// The upload (`Presenter::uploads`) it holds the picture of, once drawn.
    made_for: Option<u64>,
}

/// The frame's format and the first pass's target's.
const PICTURE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// The shader's per-column and per-row texel/weight tables (layout::axis_table): row 0 for
/// the picture rectangle's columns, row 1 for its rows, remade when the rectangle, the frame's
/// size or the filter changes.
struct AxisTables {
    texture: wgpu::Texture,
    bind_group: wgpu::BindGroup,
    /// (rectangle width, height, frame width, height, filter) of the tables held.
    made_for: Option<(u32, u32, u32, u32, Filter)>,
}

/// The on-screen display's pass: its pipeline (alpha blended), uniforms and current image.
struct OsdLayer {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniforms: wgpu::Buffer,
    /// The overlay's bind group and size, while there is one.
    current: Option<(wgpu::BindGroup, (u32, u32))>,
}

/// A fragment-stage binding of a 2D texture of `sample`.
fn texture_entry(binding: u32, sample: wgpu::TextureSampleType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: sample,
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

/// A fragment-stage binding of a uniform buffer.
fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A bind group layout of `entries`.
fn layout_of(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}

/// A render pass into `view` that clears it to `clear` first.
fn clearing_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    view: &wgpu::TextureView,
    clear: wgpu::Color,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(clear),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// A full-target triangle pipeline of `source`'s `vs_main` and the fragment entry point
/// `fragment.0` (with its override constants `fragment.1`) into `format`.
fn full_target_pipeline(
    device: &wgpu::Device,
    label: &str,
    source: &'static str,
    fragment: (&str, &[(&str, f64)]),
    layouts: &[Option<&wgpu::BindGroupLayout>],
    format: wgpu::TextureFormat,
    blend: Option<wgpu::BlendState>,
) -> wgpu::RenderPipeline {
    let (entry_point, constants) = fragment;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(source)),
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: layouts,
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some(entry_point),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                ..Default::default()
            },
            targets: &[Some(wgpu::ColorTargetState {
                format,
                blend,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

impl Presenter {
    /// A presenter drawing into views of `format` (a non-sRGB format, so values pass as they
    /// are).
    pub fn new(gpu: &Gpu, format: wgpu::TextureFormat) -> Presenter {
        let device = &gpu.device;
        // Rgba8Unorm read with textureLoad: the shader turns each texel back into its bytes.
        let texels = wgpu::TextureSampleType::Float { filterable: false };
        let layout = layout_of(
            device,
            "present",
            &[uniform_entry(0), texture_entry(1, texels)],
        );
        let axes_layout = layout_of(
            device,
            "present axes",
            &[texture_entry(0, wgpu::TextureSampleType::Sint)],
        );
        let picture_layout = layout_of(device, "present picture", &[texture_entry(0, texels)]);
        // As wide as the widest target: a rectangle is never wider or taller than that.
        let axes_texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("present axes"),
            size: wgpu::Extent3d {
                width: device.limits().max_texture_dimension_2d,
                height: 2,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Sint,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let axes = AxisTables {
            bind_group: device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("present axes"),
                layout: &axes_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(
                        &axes_texture.create_view(&wgpu::TextureViewDescriptor::default()),
                    ),
                }],
            }),
            texture: axes_texture,
            made_for: None,
        };

        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("present params"),
            size: 48,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let osd_layout = layout_of(
            device,
            "osd",
            &[
                uniform_entry(0),
                texture_entry(1, wgpu::TextureSampleType::Float { filterable: false }),
            ],
        );
        let osd = OsdLayer {
            pipeline: full_target_pipeline(
                device,
                "osd",
                OSD_WGSL,
                ("fs_main", &[]),
                &[Some(&osd_layout)],
                format,
                Some(wgpu::BlendState::ALPHA_BLENDING),
            ),
            layout: osd_layout,
            uniforms: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("osd params"),
                size: 32,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            current: None,
        };
        Presenter {
            picture_pipelines: Default::default(),
            pipelines: Default::default(),
            format,
            axes_layout,
            layout,
            picture_layout,
            uniforms,
            texture: None,
            params: FrameParams::default(),
            uploads: 0,
            osd,
            scaling: Scaling {
                filter: Filter::Nearest,
                stretch: false,
            },
            axes,
            picture: None,
        }
    }

    /// Makes the pipelines pictures are drawn with (the current filter, with and without the
    /// deflicker), so that no picture waits for its shader to compile (a CPU adapter compiles
    /// it with LLVM): made at its first use, the deflicker's stalled the first picture with it
    /// (the demo's switch to 30 fps under lavapipe: presents 7-12 ms late, the worst intervals
    /// of a minute's presented-frame jitter).
    pub fn warm_up(&mut self, gpu: &Gpu) {
        for deflicker in [false, true] {
            self.make_pipeline(gpu, deflicker);
        }
    }

    /// Makes the present pipelines for the current filter and `deflicker` unless they are
    /// made; returns their slots in `picture_pipelines` and `pipelines`.
    fn make_pipeline(&mut self, gpu: &Gpu, deflicker: bool) -> (usize, usize) {
        let sharp = self.scaling.filter == Filter::Sharp;
        let (layout, axes_layout, picture_layout) =
            (&self.layout, &self.axes_layout, &self.picture_layout);
        self.picture_pipelines[usize::from(deflicker)].get_or_insert_with(|| {
            full_target_pipeline(
                &gpu.device,
                "present picture",
                PRESENT_WGSL,
                (
                    "fs_picture",
                    &[("DEFLICKER", f64::from(u8::from(deflicker)))],
                ),
                &[Some(layout)],
                PICTURE_FORMAT,
                None,
            )
        });
        let format = self.format;
        self.pipelines[usize::from(sharp)].get_or_insert_with(|| {
            full_target_pipeline(
                &gpu.device,
                "present",
                PRESENT_WGSL,
                ("fs_main", &[("SHARP", f64::from(u8::from(sharp)))]),
                &[Some(layout), Some(axes_layout), Some(picture_layout)],
                format,
                None,
            )
        });
        (usize::from(deflicker), usize::from(sharp))
    }

    /// Makes the first pass's target for the current frame's size, unless the one held has it.
    fn make_picture(&mut self, gpu: &Gpu) {
        let size = (self.params.size.0.max(1), self.params.size.1.max(1));
        if self
            .picture
            .as_ref()
            .is_some_and(|r| (r.texture.width(), r.texture.height()) == size)
        {
            return;
        }
        let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("present picture"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: PICTURE_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("present picture"),
            layout: &self.picture_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(
                    &texture.create_view(&wgpu::TextureViewDescriptor::default()),
                ),
            }],
        });
        self.picture = Some(PictureTexture {
            texture,
            bind_group,
            made_for: None,
        });
    }

    /// Writes the axis tables for `rect` and the current frame, unless they hold them.
    fn update_axes(&mut self, gpu: &Gpu, rect: crate::layout::Rect) {
        let size = self.params.size;
        let filter = self.scaling.filter;
        let key = (rect.width, rect.height, size.0, size.1, filter);
        if self.axes.made_for == Some(key) {
            return;
        }
        let limit = self.axes.texture.width();
        for (row, (len, texels)) in [(rect.width, size.0), (rect.height, size.1)]
            .into_iter()
            .enumerate()
        {
            let len = len.min(limit);
            if len == 0 {
                continue;
            }
            let table = crate::layout::axis_table(len, texels, filter);
            let bytes: Vec<u8> = table.iter().flat_map(|v| v.to_le_bytes()).collect();
            gpu.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &self.axes.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d {
                        x: 0,
                        y: row as u32,
                        z: 0,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                &bytes,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: None,
                    rows_per_image: None,
                },
                wgpu::Extent3d {
                    width: len,
                    height: 1,
                    depth_or_array_layers: 1,
                },
            );
        }
        self.axes.made_for = Some(key);
    }

    /// How pictures are scaled into targets from now on (a new presenter: nearest, 4:3).
    pub fn set_scaling(&mut self, scaling: Scaling) {
        self.scaling = scaling;
    }

    /// The on-screen display's image from now on (`None`: nothing over the picture).
    pub fn set_overlay(&mut self, gpu: &Gpu, image: Option<&crate::osd::OverlayImage>) {
        let Some(img) = image.filter(|i| i.width > 0 && i.height > 0) else {
            self.osd.current = None;
            return;
        };
        let extent = wgpu::Extent3d {
            width: img.width,
            height: img.height,
            depth_or_array_layers: 1,
        };
        let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("osd"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        gpu.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &img.rgba,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(img.width * 4),
                rows_per_image: Some(img.height),
            },
            extent,
        );
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("osd"),
            layout: &self.osd.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.osd.uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
            ],
        });
        self.osd.current = Some((bind_group, (img.width, img.height)));
    }

    /// Whether a frame has been uploaded.
    pub fn has_frame(&self) -> bool {
        self.texture.is_some()
    }

    /// Takes `frame` as the picture to draw from now on.
    pub fn upload(&mut self, gpu: &Gpu, frame: &Frame) -> Result<(), FrontendError> {
        let size = (frame.width(), frame.height());
        let max = gpu.device.limits().max_texture_dimension_2d;
        if size.0 > max || size.1 > max {
            return Err(FrontendError::Gpu(format!(
                "frame {}x{} is larger than the adapter's textures ({max})",
                size.0, size.1
            )));
        }
        let extent = wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        };
        if self.texture.as_ref().is_none_or(|t| t.size != size) {
            let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("frame"),
                size: extent,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                // The shader reads the bytes as they are (no filtering, no sRGB).
                format: PICTURE_FORMAT,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("present"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.uniforms.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                ],
            });
            let direct = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("present frame as the picture"),
                layout: &self.picture_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                }],
            });
            self.texture = Some(FrameTexture {
                texture,
                bind_group,
                direct,
                size,
            });
        }
        let Some(t) = &self.texture else {
            return Err(FrontendError::Gpu("frame texture missing".into()));
        };
        let to = wgpu::TexelCopyTextureInfo {
            texture: &t.texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        };
        match (frame.pixels(), frame.gpu_pixels()) {
            (Some(pixels), _) => gpu.queue.write_texture(
                to,
                pixels,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(size.0 * 4),
                    rows_per_image: Some(size.1),
                },
                extent,
            ),
            (None, Some(on_gpu)) => {
                // The renderer's picture buffer to the frame texture, on the GPU (one queue: the
                // copy sees every picture submitted before it).
                let mut encoder =
                    gpu.device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("frame from the renderer"),
                        });
                encoder.copy_buffer_to_texture(
                    wgpu::TexelCopyBufferInfo {
                        buffer: &on_gpu.buffer,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: Some(on_gpu.stride * 4),
                            rows_per_image: Some(size.1),
                        },
                    },
                    to,
                    extent,
                );
                gpu.queue.submit([encoder.finish()]);
            }
            (None, None) => return Err(FrontendError::Gpu("a frame with no pixels".into())),
        }
        self.params = FrameParams {
            size,
            offset: frame.offset_pixels(),
            deflicker: frame.deflicker_alpha(),
        };
        self.uploads += 1;
        gpu.check("uploading a frame")
    }

    /// Records drawing the current frame (black with none) into `view`, a `width` x `height`
    /// target: the 4:3 letterbox (or the whole target, stretched), black around it.
    pub fn draw(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        width: u32,
        height: u32,
    ) {
        let rect = picture_rect(width, height, self.scaling.stretch);
        self.update_axes(gpu, rect);
        let (picture_slot, slot) = self.make_pipeline(gpu, self.params.deflicker != 0);
        let p = self.params;
        let words: [i32; 12] = [
            rect.x as i32,
            rect.y as i32,
            rect.width as i32,
            rect.height as i32,
            p.size.0 as i32,
            p.size.1 as i32,
            p.offset.0,
            p.offset.1,
            p.deflicker as i32,
            0,
            0,
            0,
        ];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        gpu.queue.write_buffer(&self.uniforms, 0, &bytes);
        let shown = self.texture.is_some() && rect.width > 0 && rect.height > 0;
        // The first pass (once per frame) where the frame is not the picture as it is.
        let direct = p.offset == (0, 0) && p.deflicker == 0;
        if shown && !direct {
            self.make_picture(gpu);
            if let (Some(t), Some(picture), Some(pipeline)) = (
                &self.texture,
                &mut self.picture,
                &self.picture_pipelines[picture_slot],
            ) && picture.made_for != Some(self.uploads)
            {
                let view = picture
                    .texture
                    .create_view(&wgpu::TextureViewDescriptor::default());
                let mut pass =
                    clearing_pass(encoder, "present picture", &view, wgpu::Color::TRANSPARENT);
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &t.bind_group, &[]);
                pass.draw(0..3, 0..1);
                picture.made_for = Some(self.uploads);
            }
        }
        let mut pass = clearing_pass(encoder, "present", view, wgpu::Color::BLACK);
        if shown
            && let (Some(t), Some(pipeline)) = (&self.texture, &self.pipelines[slot])
            && let Some(source) = match &self.picture {
                _ if direct => Some(&t.direct),
                Some(picture) => Some(&picture.bind_group),
                None => None,
            }
        {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &t.bind_group, &[]);
            pass.set_bind_group(1, &self.axes.bind_group, &[]);
            pass.set_bind_group(2, source, &[]);
            pass.draw(0..3, 0..1);
        }
        if let Some((bind_group, size)) = &self.osd.current {
            // Over the window's top left corner, 8 pixels in at scale 1.
            let scale = crate::osd::scale_for(height);
            let margin = 8 * scale;
            // Only its box is drawn (scissored): the full-target triangle over the whole
            // target cost a CPU adapter a full pass, 5 ms a picture on lavapipe.
            let (right, bottom) = (
                (margin + size.0 * scale).min(width),
                (margin + size.1 * scale).min(height),
            );
            if right > margin && bottom > margin {
                let words: [i32; 8] = [
                    margin as i32,
                    margin as i32,
                    scale as i32,
                    0,
                    size.0 as i32,
                    size.1 as i32,
                    0,
                    0,
                ];
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                gpu.queue.write_buffer(&self.osd.uniforms, 0, &bytes);
                pass.set_pipeline(&self.osd.pipeline);
                pass.set_bind_group(0, bind_group, &[]);
                pass.set_scissor_rect(margin, margin, right - margin, bottom - margin);
                pass.draw(0..3, 0..1);
            }
        }
    }
}

/// The presentation without a window: drawn into an offscreen texture and read back.
pub struct Headless {
    gpu: Gpu,
    presenter: Presenter,
}

/// The offscreen target's format.
const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

impl Headless {
    /// A headless presenter on the first adapter wgpu finds (Mesa's lavapipe on a machine
    /// without a GPU).
    pub fn new() -> Result<Headless, FrontendError> {
        let gpu = Gpu::headless()?;
        let presenter = Presenter::new(&gpu, OFFSCREEN_FORMAT);
        gpu.check("creating the presenter")?;
        Ok(Headless { gpu, presenter })
    }

    /// The adapter in use.
    pub fn adapter_info(&self) -> String {
        self.gpu.adapter_info()
    }

    /// How [`Headless::render`] scales from now on (a new one: nearest, 4:3).
    pub fn set_scaling(&mut self, scaling: Scaling) {
        self.presenter.set_scaling(scaling);
    }

    /// The on-screen display drawn over what [`Headless::render`] renders from now on.
    pub fn set_overlay(&mut self, image: Option<&crate::osd::OverlayImage>) {
        self.presenter.set_overlay(&self.gpu, image);
    }

    /// `frame` presented into a `width` x `height` target, exactly as a window of that inner
    /// size shows it: RGBA8 rows, tightly packed.
    pub fn render(
        &mut self,
        frame: &Frame,
        width: u32,
        height: u32,
    ) -> Result<Vec<u8>, FrontendError> {
        let max = self.gpu.device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(FrontendError::Gpu(format!(
                "offscreen target {width}x{height} is outside 1..={max}"
            )));
        }
        self.presenter.upload(&self.gpu, frame)?;
        let device = &self.gpu.device;
        let extent = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = target.create_view(&wgpu::TextureViewDescriptor::default());
        // Buffer rows are padded to 256 bytes (COPY_BYTES_PER_ROW_ALIGNMENT).
        let row = width * 4;
        let padded =
            row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: padded as u64 * height as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("headless"),
        });
        self.presenter
            .draw(&self.gpu, &mut encoder, &view, width, height);
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &target,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(height),
                },
            },
            extent,
        );
        self.gpu.queue.submit([encoder.finish()]);
        let (tx, rx) = mpsc::channel();
        buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| FrontendError::Gpu(format!("waiting for the readback: {e}")))?;
        self.gpu.check("rendering offscreen")?;
        rx.recv()
            .map_err(|_| FrontendError::Gpu("readback never completed".into()))?
            .map_err(|e| FrontendError::Gpu(format!("mapping the readback: {e}")))?;
        let mut out = Vec::with_capacity(row as usize * height as usize);
        {
            let data = buffer
                .slice(..)
                .get_mapped_range()
                .map_err(|e| FrontendError::Gpu(format!("reading the readback: {e}")))?;
            for y in 0..height as usize {
                let start = y * padded as usize;
                out.extend_from_slice(&data[start..start + row as usize]);
            }
        }
        buffer.unmap();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window's warm-up makes the first pass's pipelines with and without the deflicker
    /// and the second pass's for the current filter, and only those.
    #[test]
    fn warm_up_makes_both_deflicker_pipelines_of_the_filter() {
        let mut h = Headless::new().unwrap_or_else(|e| panic!("headless wgpu: {e}"));
        let made = |p: &Presenter| {
            (
                p.picture_pipelines.iter().map(Option::is_some).collect(),
                p.pipelines.iter().map(Option::is_some).collect(),
            )
        };
        assert_eq!(made(&h.presenter), (vec![false; 2], vec![false; 2]));
        h.presenter.warm_up(&h.gpu);
        let sharp = h.presenter.scaling.filter == Filter::Sharp;
        assert_eq!(
            made(&h.presenter),
            (vec![true; 2], vec![!sharp, sharp]),
            "(deflicker slots, filter slots) made"
        );
        assert_eq!(
            h.presenter.params.deflicker, 0,
            "the frame's own deflicker is kept"
        );
    }
}
