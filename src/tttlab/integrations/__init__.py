"""tttlab's exact judge inside other libraries' training loops.

:mod:`tttlab.integrations.sb3`: a Stable-Baselines3 callback that judges the model exactly
every N steps and logs the metrics where Stable-Baselines3 logs its own.
"""
