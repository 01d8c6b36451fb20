"""Every size limit of tttlab in one place, each with the reason it exists.

Two kinds of count appear: *positions* (the exact number of reachable positions, known once
the table is built) and *candidates* (:func:`tttlab.game.estimate_positions`, an upper
bound known before building anything). For reference, the boards people use:

========  =========  ===========
board     positions  candidates
========  =========  ===========
3×3       5,478      6,046
3×4 k=3   111,973    143,365
3×5 k=3   2,286,668  3,492,117
4×4       9,722,011  10,165,779
4×5       (too many) 741,365,049
========  =========  ===========

So the limits below sort boards into: small (3×4 and below: everything, everywhere), 4×4
(full tables and exact judging on request, not routinely), and bigger (proof search,
sampled judging and the batched environment only).
"""

from __future__ import annotations

__all__ = [
    "BOX_COPY_BYTES",
    "BOX_PROCESSES",
    "BOX_STDERR_BYTES",
    "BOX_WRITABLE_BYTES",
    "CALL_ANSWER_BYTES",
    "CERTIFICATE_BYTES",
    "CERTIFICATE_DEPTH",
    "CERTIFICATE_DIGITS",
    "CONV_CHANNELS",
    "CONV_LAYERS",
    "ENUMERATION_CANDIDATES",
    "EXACT_JUDGE_POSITIONS",
    "HIDDEN_LAYERS",
    "HIDDEN_WIDTH",
    "MDP_POSITIONS",
    "PERFECT_MOVE_SECONDS",
    "PLAIN_LINE_SECONDS",
    "PROOF_BATCH",
    "PROOF_POSITIONS",
    "PROOF_SHARES_POSITIONS",
    "ROUTINE_JUDGE_POSITIONS",
    "SEARCH_CELLS",
    "SERVER_PLAYS_CANDIDATES",
    "SERVER_SEARCH_CELLS",
    "SERVER_TABLE_CANDIDATES",
    "SERVER_TRAINING_EPISODES",
    "TABLE_ANSWER_BYTES",
    "TABLE_SOLVE_CANDIDATES",
]

#: Full tables are built only up to this many candidates: the move table alone takes
#: candidates × cells × 4 bytes, and beyond this it would not fit in memory (5×5 needs
#: about 10¹¹). Bigger boards are refused at once with the estimate.
ENUMERATION_CANDIDATES = 60_000_000

#: Exact judging (``ttt eval``, :func:`tttlab.evaluate`, each run of ``ttt sweep``) walks the
#: whole game graph; up to this many positions it takes seconds to half a minute and a few
#: GiB (4×4 k=4: about 30 s and 2 GiB). Beyond it, judge sampled decisions instead.
EXACT_JUDGE_POSITIONS = 12_000_000

#: Judging that nobody asked for (after ``ttt train``, and at every point of a learning
#: curve) must stay cheap next to the training itself: up to this many positions (every board
#: below 4×4). Beyond it, a curve point judges sampled games and the summary leaves the
#: evaluation out (``ttt eval`` does it on request).
ROUTINE_JUDGE_POSITIONS = 2_000_000

#: Off a terminal (a log file, CI), where a bar or a spinner would show nothing or be cut,
#: progress is a plain line at most every this many seconds (training, ``ttt eval --prove``,
#: ``ttt eval --sample``): a long run shows it is alive, and a log stays short.
PLAIN_LINE_SECONDS = 10.0

#: ``ttt eval --prove`` walks every game the agent can play, keeping 16 bytes per position
#: for the losing line and the widest ply's moves (about 50 bytes each) at a time: 5×5 k=4
#: took 430 MB at its peak for 2.6 million positions. Up to this many positions in all, a
#: few GiB; an agent that needs more has not been proved (nor beaten) within it.
PROOF_POSITIONS = 100_000_000

#: ``ttt eval --prove`` asks the agent about this many positions at once (a network: one
#: batched forward pass or search; ``ttt eval`` over a table asks as many of its positions
#: at once too) and expands as many parents at a time, which bounds the
#: memory of one step (children × cells bytes). A time budget (``--seconds``) is looked at
#: between batches, so one batch may overrun it (256 simulations on 5×5: most of a minute).
PROOF_BATCH = 65_536

#: Once the proof has found a loss, the worst case is proved; it goes on (for the exact
#: results against random) only up to this many positions, seconds of work.
PROOF_SHARES_POSITIONS = 2_000_000

#: The MDP holds one sparse matrix per cell over its states: up to this many positions.
MDP_POSITIONS = 2_000_000

#: ``solve(method="auto")`` builds the full table (with every count) up to this many
#: candidates, and otherwise runs the proof search, which is faster on bigger boards.
TABLE_SOLVE_CANDIDATES = 1_000_000

#: The proof search's bitboards cover every board up to 8×8 (:data:`tttlab.game.geometry.
#: MAX_CELLS` is this bound), past the boards tttlab plays (39 cells); how far a proof gets is
#: bounded by its time limit and memory. ``ttt verify`` takes every board of up to this many
#: cells too (1×12 with k = 4 as well as 8×8), so it accepts every certificate the solver
#: writes.
SEARCH_CELLS = 64

#: ``ttt verify`` reads a certificate of at most this many bytes: the largest built so far is
#: 6.4 MB (5×5 with k = 4), and parsing takes a few times the file's size in memory, so a
#: bigger file is refused in one line before it is read.
CERTIFICATE_BYTES = 256 * 2**20

#: JSON nesting ``ttt verify`` reads: a certificate nests five deep (the object, its
#: strategies, one side's, a pairing, a pair); a deeper file is refused in one line before
#: it is parsed (200,000 nested arrays would otherwise exhaust the parser's stack).
CERTIFICATE_DEPTH = 8

#: Digits of a number in a certificate: its numbers are the version, rows, cols, k and
#: cells, all below 100; a longer number is refused in one line before it is converted
#: (Python refuses integers past 4,300 digits with an error of its own).
CERTIFICATE_DIGITS = 20

#: ``perfect`` past the full tables proves each position it plays from: a move whose proof
#: takes longer is refused in one line (6×5 with k = 4, the empty board: 0.2 s; 8×4 with
#: k = 4: 10 s).
PERFECT_MOVE_SECONDS = 60.0

#: The web server plays bigger boards by proof search move by move; up to this many cells
#: a move takes at most seconds (5×5 k=4's hardest position, the empty board, 0.4 s).
SERVER_SEARCH_CELLS = 25

#: The web server shares one machine between its users: it builds tables (perfect play,
#: exact values, judging, mistakes, training) only for boards up to this many candidates.
SERVER_TABLE_CANDIDATES = 1_000_000

#: Boards the server plays at all (with search, not tables): up to this many candidates, or
#: at most :data:`SERVER_SEARCH_CELLS` cells.
SERVER_PLAYS_CANDIDATES = 10_000_000

#: Episodes of one training job on the server unless ``ttt serve --max-episodes`` says
#: otherwise (3×3 q learns 2 million in about a second; 3×4 in under a minute).
SERVER_TRAINING_EPISODES = 2_000_000

#: A network's perceptron (``--hidden``): at most this many layers of at most this many
#: units, as options and as agent files (a file's header cannot ask for a huge array).
HIDDEN_LAYERS = 16
HIDDEN_WIDTH = 4096

#: A network's 3×3 convolutions (``--conv``): at most this many layers of at most this many
#: channels. A layer costs 9 × channels² multiplications per *cell*, where a perceptron's
#: layer costs its width² per board: on 5×5, ``--conv 32,32`` makes the network 14 times the
#: default perceptron's multiplications (366,912 against 26,112 per position), and on a CPU
#: the self-play search waits for every one of them.
CONV_LAYERS = 8
CONV_CHANNELS = 256

# ``ttt check``'s box (tttlab.usercode.box and .sandbox): what one submission may use.

#: The most bytes of a submission's folder copied into its box: a class's files are source
#: code (the corpus's largest folder is 12 KB); past this the folder is refused in one line,
#: before anything runs.
BOX_COPY_BYTES = 16 * 2**20

#: Everything a submission may write in its box, together: its working folder and /tmp are
#: one tmpfs of this size (the disk cannot fill, and memory holds it), /dev holds the device
#: nodes only, read-only, and every other folder is read-only. One file may be this large
#: (``RLIMIT_FSIZE``, in and out of the box).
BOX_WRITABLE_BYTES = 64 * 2**20

#: Processes a box may run at once, besides those its user already runs (a fork bomb stops
#: here; the caller, the worker and a few of the student's own fit).
BOX_PROCESSES = 32

#: Bytes of a box's stderr the grader keeps, its head and its tail, half each: the last line
#: names a crash, and a flood costs nothing.
BOX_STDERR_BYTES = 64 * 1024

#: Bytes of one answer of a call (the longest honest answer is a board, a list of actions,
#: or an error's text of 200 characters): a larger answer is no answer, and the grader's
#: bound on the whole channel is this many bytes a planned call.
CALL_ANSWER_BYTES = 1024

#: Bytes of an answer that is a whole table (the course's ``initialV_x`` over 5,478 states,
#: ``get_state_hash_and_winner`` over 19,683: about 300 KB).
TABLE_ANSWER_BYTES = 2**20
