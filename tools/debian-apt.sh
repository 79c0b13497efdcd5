# Sourced by tools/install-deps.sh and tools/build-siw.sh: Debian archive helpers that never touch the host's own apt
# configuration (no trixie or sid line is ever added to /etc/apt).
#
#   debian_mirror          the archive URI this host's apt uses for bookworm (RDMA_DEBIAN_MIRROR overrides): the
#                          same mirror serves trixie and sid, so debootstrap and the private sid list use it too
#   sid_apt ARGS...        apt-get with a private configuration under $SID_APT_DIR (default build/apt-sid): its own
#                          source list (sid main only), lists and cache; the host's dpkg database is only read
#   sid_apt_cache ARGS...  apt-cache with the same configuration
#   SID_APT_OPTS           the options of both, for `timeout 900 apt-get "${SID_APT_OPTS[@]}" ...`
#   sid_apt_ready          creates the private configuration and runs `update` once (again when its lists are more
#                          than a day old); 0 when the lists are usable
#   suite_apt_ready SUITE  the same for any suite (bookworm, trixie, sid: build/apt-<suite>, main only); sets
#                          SUITE_APT_OPTS, the options of apt-get / apt-cache for that configuration
# Callers set REPO (the checkout) before sourcing.

SID_APT_DIR=${SID_APT_DIR:-$REPO/build/apt-sid}

debian_mirror() {
    if [[ -n ${RDMA_DEBIAN_MIRROR:-} ]]; then
        echo "$RDMA_DEBIAN_MIRROR"
        return 0
    fi
    local uri
    uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(IDENTIFIER)' 2>/dev/null |
          awk '$2 == "bookworm" && $3 == "Packages" { print $1; exit }')
    [[ -n $uri ]] || return 1
    echo "${uri%/}"
}

# The options, for callers that need them under `timeout`: timeout 900 apt-get "${SID_APT_OPTS[@]}" ...
SID_APT_OPTS=(-o "Dir::Etc::SourceList=$SID_APT_DIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State=$SID_APT_DIR/state" -o "Dir::Cache=$SID_APT_DIR/cache"
              -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
              -o Acquire::Languages=none)
sid_apt() { apt-get "${SID_APT_OPTS[@]}" "$@"; }
sid_apt_cache() { apt-cache "${SID_APT_OPTS[@]}" "$@"; }

sid_apt_ready() {
    local mirror lists=$SID_APT_DIR/state/lists
    mkdir -p "$lists/partial" "$SID_APT_DIR/cache/archives/partial" || return 1
    mirror=$(debian_mirror) || { echo "debian-apt: cannot tell this host's Debian mirror (set RDMA_DEBIAN_MIRROR)" >&2; return 1; }
    local line="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main"
    [[ "$(cat "$SID_APT_DIR/sources.list" 2>/dev/null)" == "$line" ]] || echo "$line" > "$SID_APT_DIR/sources.list"
    if [[ -n $(find "$lists" -maxdepth 1 -name '*_sid_main_binary-amd64_Packages*' -mmin -1440 2>/dev/null) ]]; then
        return 0
    fi
    timeout 900 apt-get "${SID_APT_OPTS[@]}" -q update
}

# Any suite, the same way (build/apt-<suite>; build/apt-sid is the configuration sid_apt uses).
suite_apt_ready() { # SUITE
    local suite=$1 dir mirror lists line
    dir=$(dirname "$SID_APT_DIR")/apt-$suite
    lists=$dir/state/lists
    SUITE_APT_OPTS=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
                    -o "Dir::State=$dir/state" -o "Dir::Cache=$dir/cache"
                    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
                    -o Acquire::Languages=none)
    mkdir -p "$lists/partial" "$dir/cache/archives/partial" || return 1
    mirror=$(debian_mirror) || { echo "debian-apt: cannot tell this host's Debian mirror (set RDMA_DEBIAN_MIRROR)" >&2; return 1; }
    line="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main"
    [[ "$(cat "$dir/sources.list" 2>/dev/null)" == "$line" ]] || echo "$line" > "$dir/sources.list"
    if [[ -n $(find "$lists" -maxdepth 1 -name "*_${suite}_main_binary-amd64_Packages*" -mmin -1440 2>/dev/null) ]]; then
        return 0
    fi
    timeout 900 apt-get "${SUITE_APT_OPTS[@]}" -q update
}
