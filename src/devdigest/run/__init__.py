"""Scheduled production: ``devdigest run`` and ``devdigest backfill``.

``windows`` plans (pure), ``jobs`` holds the per-repository steps as plain functions,
``executor`` carries out plans (in process), ``lock`` keeps runs on one store apart, and
``runner`` ties them together. Import the submodules directly; this package imports nothing so
that the configuration can check window kinds cheaply.
"""
