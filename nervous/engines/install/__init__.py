"""Installing skills: the admission gate and the installer."""
