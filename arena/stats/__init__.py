"""Statistics over a league's games: the order-free rating fit and its helpers.

Nothing here reads a store or a record: every function takes plain values.
"""
