"""Attacks on fixed aggregate statistics (paper 003): DeSIA and its baselines."""
