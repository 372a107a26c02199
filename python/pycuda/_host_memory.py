"""Host memory helpers (being written)."""
