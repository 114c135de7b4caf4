//! The frontend's errors.

/// Why a windowed session could not run, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    /// No display to open a window on (no `DISPLAY` / `WAYLAND_DISPLAY`, or the display
    /// server refused the connection). The binary prints `piney: ` and this message.
    #[error("no display available; run with --headless")]
    NoDisplay {
        /// What was found missing, for a verbose log.
        reason: String,
    },
    /// wgpu found no adapter at all.
    #[error("no GPU adapter: {0}")]
    NoAdapter(String),
    /// A GPU operation failed.
    #[error("GPU: {0}")]
    Gpu(String),
    /// The window could not be made or the event loop failed.
    #[error("window: {0}")]
    Window(String),
    /// The emulator stopped the session with an error.
    #[error("{0}")]
    Emulator(String),
}
