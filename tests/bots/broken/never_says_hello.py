#!/usr/bin/env python3
"""Never answers ``hello``: it reads nothing and sleeps until it is killed."""

import time

time.sleep(300)
