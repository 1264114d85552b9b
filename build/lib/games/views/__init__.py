"""The games app's views, one module per area: playing through seat links (play), setting
up games (setup)."""
