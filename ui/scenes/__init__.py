"""Scenes other than the table: attract, help, maintenance and overlays.

Each module has a pure ``draw(painter, ...)``; none reads a clock or a socket.
"""
