"""Stand-in for the few ``gymnasium`` names the vendored reinforcement-learning programs use
(gymnasium is installed in neither environment): ``gym.make("CartPole-v1")`` returns a CartPole
with the classic-control dynamics (Euler integration, the 12-degree / 2.4 thresholds, reward 1
a step, truncation after 500 steps), observations as float32 numpy arrays, and its own numpy
generator (``np.random.default_rng(seed)``, reseeded by ``reset(seed=...)``) for the initial
state. It imports neither torch nor anything else outside numpy, so both libraries see the same
environment."""

import math
import types

import numpy as np


class Discrete:
    """The action space ``{0, ..., n-1}``."""

    def __init__(self, n, rng):
        self.n = n
        self.shape = ()
        self._rng = rng

    def sample(self):
        return int(self._rng.integers(self.n))

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)


class Box:
    """An observation space: only its shape is used."""

    def __init__(self, low, high, shape):
        self.low, self.high, self.shape = low, high, shape


class CartPoleEnv:
    """Cart-pole balancing (Barto, Sutton and Anderson), as in gymnasium's classic control."""

    def __init__(self, render_mode=None, max_episode_steps=500):
        self.gravity = 9.8
        self.masscart = 1.0
        self.masspole = 0.1
        self.total_mass = self.masspole + self.masscart
        self.length = 0.5
        self.polemass_length = self.masspole * self.length
        self.force_mag = 10.0
        self.tau = 0.02
        self.theta_threshold_radians = 12 * 2 * math.pi / 360
        self.x_threshold = 2.4
        self.render_mode = render_mode
        self.np_random = np.random.default_rng()
        self.action_space = Discrete(2, np.random.default_rng(0))
        high = np.array([4.8, np.inf, 0.42, np.inf], dtype=np.float32)
        self.observation_space = Box(-high, high, (4,))
        self.spec = types.SimpleNamespace(
            id="CartPole-v1", reward_threshold=475.0, max_episode_steps=max_episode_steps
        )
        self.state = None
        self._steps = 0
        self._max_steps = max_episode_steps
        self.unwrapped = self

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self.state = self.np_random.uniform(low=-0.05, high=0.05, size=(4,))
        self._steps = 0
        return np.array(self.state, dtype=np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if int(action) == 1 else -self.force_mag
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        temp = (force + self.polemass_length * theta_dot**2 * sintheta) / self.total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta**2 / self.total_mass)
        )
        xacc = temp - self.polemass_length * thetaacc * costheta / self.total_mass
        x = x + self.tau * x_dot
        x_dot = x_dot + self.tau * xacc
        theta = theta + self.tau * theta_dot
        theta_dot = theta_dot + self.tau * thetaacc
        self.state = np.array((x, x_dot, theta, theta_dot), dtype=np.float64)
        terminated = bool(
            x < -self.x_threshold
            or x > self.x_threshold
            or theta < -self.theta_threshold_radians
            or theta > self.theta_threshold_radians
        )
        self._steps += 1
        truncated = self._steps >= self._max_steps and not terminated
        return np.array(self.state, dtype=np.float32), 1.0, terminated, truncated, {}

    def render(self):
        return None

    def close(self):
        pass


def make(env_id, render_mode=None, **kwargs):
    """Only ``CartPole-v1`` (or ``CartPole-v0``, 200 steps) is provided."""
    if env_id == "CartPole-v1":
        return CartPoleEnv(render_mode=render_mode, **kwargs)
    if env_id == "CartPole-v0":
        env = CartPoleEnv(render_mode=render_mode, max_episode_steps=200)
        env.spec.reward_threshold = 195.0
        return env
    raise NotImplementedError(f"gymnasium stand-in: no environment {env_id!r}")
