"""The corpus holds students' files as they write them (some train or ask for input when
imported): pytest's doctest collection must not import them."""

collect_ignore_glob = ["corpus/*"]
