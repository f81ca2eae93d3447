"""A casino floor simulator: controller events, injected dealer errors, and their truth."""
