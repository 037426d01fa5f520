"""Sample answers to `matrix_multiplication.my_matmul`: right ones and the plausible wrong ones.

The grader (`matrix_multiplication.py`) registers them; its hidden inputs and expected answers stay
there. Each takes M and N as the learner's `my_matmul` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def solution(M: Any, N: Any) -> list[list[float]]:
    rows, inner = len(M), len(M[0])
    if len(N) != inner:
        raise ValueError(f"cannot multiply {(rows, inner)} by {(len(N), len(N[0]))}: {inner} != {len(N)}")
    cols = len(N[0])
    return [[sum(M[i][k] * N[k][j] for k in range(inner)) for j in range(cols)] for i in range(rows)]


def numpy_checked(M: Any, N: Any) -> np.ndarray:
    M, N = np.asarray(M), np.asarray(N)
    if M.shape[1] != N.shape[0]:
        raise ValueError(f"M is {M.shape[0]}×{M.shape[1]} but N is {N.shape[0]}×{N.shape[1]}")
    return M @ N


def zipped_columns(M: Any, N: Any) -> tuple:
    if len(M[0]) != len(N):
        raise ValueError(f"shapes {np.shape(M)} and {np.shape(N)} do not fit together")
    columns = list(zip(*N))
    return tuple(tuple(sum(a * b for a, b in zip(row, col)) for col in columns) for row in M)


def numpy_unchecked(M: Any, N: Any) -> np.ndarray:
    return np.asarray(M) @ np.asarray(N)  # numpy's own message names neither shape


def no_shape_check(M: Any, N: Any) -> list[list[float]]:
    cols = len(N[0])
    return [[sum(M[i][k] * N[k][j] for k in range(len(M[0]))) for j in range(cols)] for i in range(len(M))]


def vague_message(M: Any, N: Any) -> list[list[float]]:
    if len(M[0]) != len(N):
        raise ValueError("the inner dimensions differ")
    return solution(M, N)


def one_shape(M: Any, N: Any) -> list[list[float]]:
    if len(M[0]) != len(N):
        raise ValueError(f"M has shape {np.shape(M)}, which does not fit")
    return solution(M, N)


def type_error(M: Any, N: Any) -> list[list[float]]:
    if len(M[0]) != len(N):
        raise TypeError(f"cannot multiply {np.shape(M)} by {np.shape(N)}")
    return solution(M, N)


def square_only(M: Any, N: Any) -> list[list[float]]:
    n = len(M)
    if len(M[0]) != len(N):
        raise ValueError(f"cannot multiply {np.shape(M)} by {np.shape(N)}")
    return [[sum(M[i][k] * N[k][j] for k in range(len(N))) for j in range(n)] for i in range(n)]


def wrong_index(M: Any, N: Any) -> list[list[float]]:
    if len(M[0]) != len(N):
        raise ValueError(f"cannot multiply {np.shape(M)} by {np.shape(N)}")
    return [[sum(M[i][k] * N[k][i] for k in range(len(N))) for j in range(len(N[0]))] for i in range(len(M))]


def off_by_one(M: Any, N: Any) -> list[list[float]]:
    if len(M[0]) != len(N):
        raise ValueError(f"cannot multiply {np.shape(M)} by {np.shape(N)}")
    inner = len(N)
    return [[sum(M[i][k] * N[k][j] for k in range(inner - 1)) for j in range(len(N[0]))] for i in range(len(M))]


def int_cells(M: Any, N: Any) -> list[list[int]]:
    """Right sums, each cut to a whole number by int(): passes while every entry is whole."""
    return [[int(cell) for cell in row] for row in solution(M, N)]


def cached_by_m(M: Any, N: Any, memory: dict = {}) -> Any:  # noqa: B006 - the memory is the slip
    """Remembers its result by M alone: the second N with the same M gets the first N's product."""
    return memory.setdefault(repr(np.asarray(M).tolist()), solution(M, N))


def transposed(M: Any, N: Any) -> np.ndarray:
    return np.asarray(solution(M, N)).T


def no_return(M: Any, N: Any) -> None:
    solution(M, N)


def zeroes_input(M: Any, N: Any) -> list[list[float]]:
    M[:] = 0  # changes the caller's matrix, then multiplies the zeroed one
    return solution(M, N)


def scribbles_after(M: Any, N: Any) -> list[list[float]]:
    result = solution(M, N)
    N[0][0] = 99.0  # the right product, but the caller's N is changed
    return result
