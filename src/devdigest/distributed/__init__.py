"""Runs spread over Celery workers sharing one PostgreSQL store and a pool of GitHub tokens.

``app`` (the Celery application), ``tasks`` (thin wrappers over ``devdigest.run.jobs``),
``ledger`` (task records, token budget and the per-repository lock in the store) and
``dispatch`` (enqueueing a run, waiting for it, status). Needs the ``distributed`` extra.
"""
