//! The PS2's float arithmetic (COP1, and VU0/VU1 lanes): IEEE single layout, but no denormals
//! (inputs and results flush to zero), no infinities or NaNs (exponent 255 is an ordinary
//! exponent on input; results that overflow clamp to the largest finite value with their sign),
//! and rounding towards zero.
