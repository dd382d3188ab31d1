"""The dashboard in a real headless Chromium (Debian's `chromium` + `chromium-driver`, driven by
Selenium), on the data of a real pipeline run: the pages render, the charts have points, a
session link opens its curve. A screenshot is saved as a test artifact
(`$HALLMON_TEST_ARTIFACTS`, default: the test's tmp folder)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.conftest import in_ci
from tests.integration.serve.conftest import ServedPipeline

pytestmark = [pytest.mark.integration, pytest.mark.model]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        why = "Debian's chromium and chromium-driver are needed (deploy/local/system-deps.sh)"
        if in_ci():
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    options = Options()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1440,1100",
    ):
        options.add_argument(arg)
    # An explicit driver path: Selenium Manager never tries to download one.
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: webdriver.Chrome, what: str, check: Callable[[Any], Any]) -> Any:
    try:
        return WebDriverWait(driver, 20, poll_frequency=0.2).until(check)
    except Exception:
        status = driver.find_element(By.ID, "status").text
        pytest.fail(f"the dashboard never showed {what} (status line: {status!r})")


def artifact_dir(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("HALLMON_TEST_ARTIFACTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_dashboard_renders_sessions_curves_and_verdicts(
    served_pipeline: ServedPipeline, browser: webdriver.Chrome, tmp_path: Path
) -> None:
    browser.get(served_pipeline.base_url + "/")
    tired = next(s for s in served_pipeline.sessions if s.startswith("tired-"))

    def session_links(d: Any) -> list[Any]:
        return d.find_elements(By.CSS_SELECTOR, "#sessions a.session-link")

    wait(browser, "the ranked sessions", lambda d: len(session_links(d)) >= 3)
    names = [a.text for a in session_links(browser)]
    assert tired in names
    sparks = browser.find_elements(By.CSS_SELECTOR, "#sessions svg.sparkline polyline")
    assert len(sparks) >= 3
    assert all(len(p.get_attribute("points").split()) >= 2 for p in sparks[:3])
    # The front page lists the latest verdicts with unsupported claims highlighted.
    wait(browser, "latest verdicts", lambda d: d.find_elements(By.CSS_SELECTOR, ".verdict"))

    # A session link opens that session's curves.
    next(a for a in session_links(browser) if a.text == tired).click()
    wait(
        browser,
        "the session curve",
        lambda d: d.find_elements(By.CSS_SELECTOR, "#chart-turn circle.point"),
    )
    assert tired in browser.find_element(By.ID, "session-title").text
    assert browser.current_url.endswith(f"#/session/{tired}")
    with served_pipeline.client() as client:
        snap = client.get(f"/sessions/{tired}").json()
    points = len(snap["snapshot"]["series"])
    for chart in ("chart-turn", "chart-context"):
        circles = browser.find_elements(By.CSS_SELECTOR, f"#{chart} circle.point")
        assert len(circles) == points, chart
    # Alerts are marked on the curves, fleet buckets have bars.
    assert browser.find_elements(By.CSS_SELECTOR, "#chart-turn .alert-mark")
    wait(browser, "fleet bars", lambda d: d.find_elements(By.CSS_SELECTOR, "#fleet-turn rect.bar"))
    marks = browser.find_elements(By.CSS_SELECTOR, "#verdicts mark")
    assert marks, "the tired session's unsupported claims should be highlighted"
    assert {m.get_attribute("class") for m in marks} <= {"contradicted", "not_found", "unclear"}

    shot = artifact_dir(tmp_path) / "dashboard.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
