//! piney-input: the engine's pad reader (`ccPad::Read`) and rumble queue (`SetActuater`,
//! `ccPad::Ctrl`), natively. (Being written.)
