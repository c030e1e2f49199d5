# Sourced by npm test: the headless browser the assistant page spec drives (puppeteer-core downloads none).

ensure_chromium() {
  [ -x "/usr/bin/chromium" ] && return
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
    say "no chromium on this machine: installing Debian's chromium with apt-get (the assistant page spec drives it)"
    # Waits for another apt (a second clone's npm test, unattended upgrades) instead of failing on its lock.
    local apt=(apt-get -o DPkg::Lock::Timeout=900 -qq)
    { DEBIAN_FRONTEND=noninteractive "${apt[@]}" update && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y chromium; } </dev/null >&2 \
      || die "apt-get install chromium failed"
  else
    die "no chromium at /usr/bin/chromium: install it (Debian: apt-get install chromium)"
  fi
}
