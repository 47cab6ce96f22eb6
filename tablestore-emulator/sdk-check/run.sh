#!/usr/bin/env bash
# Runs the Tablestore Java SDK's own functional tests against the standalone emulator and prints
# per-class pass/fail counts and the overall pass rate. Not part of the Maven build.
#
#   tablestore-emulator/sdk-check/run.sh SDK_SOURCES [CLASS ...]
#
# SDK_SOURCES: a checkout of the SDK's repository (the directory holding tablestore/src/test/java)
# or of its tablestore module (the directory holding src/test/java). Nothing is downloaded from it.
# CLASS: test classes to run instead of the selection below (simple or qualified names).
# See README.md beside this script.
set -euo pipefail

# The SDK's functional tests of the APIs the emulator serves: tables, rows, batch, range, split
# points, tunnels. Left out: search index, SQL, timeseries, transactions, secondary and global
# indexes, bulk import/export, and the tests that never reach a server (mocks, model classes).
SELECTION=(
    com.alicloud.openservices.tablestore.functiontest.APITest
    com.alicloud.openservices.tablestore.functiontest.DataOperationTest
    com.alicloud.openservices.tablestore.functiontest.IncrementRequest
    com.alicloud.openservices.tablestore.functiontest.OTSAPIBehaviorTest
    com.alicloud.openservices.tablestore.functiontest.OTSBasicCompaFourTest
    com.alicloud.openservices.tablestore.functiontest.ParameterLegalityTest
    com.alicloud.openservices.tablestore.functiontest.RestrictedItemTest
    com.alicloud.openservices.tablestore.functiontest.SplitPointTest
    com.alicloud.openservices.tablestore.functiontest.TableCreationTimeTest
    com.alicloud.openservices.tablestore.functiontest.TestComputeSplitPointsBySize
    com.alicloud.openservices.tablestore.functiontest.TestComputeSplitsBySize
    com.alicloud.openservices.tablestore.functiontest.TestCreateTableExFunciton
    com.alicloud.openservices.tablestore.tunnel.functiontest.TestTunnelConsumer
)

SDK_VERSION="${SDK_VERSION:-5.17.10}"
JUNIT_VERSION="${JUNIT_VERSION:-4.13.2}"
CLASS_TIMEOUT_S="${CLASS_TIMEOUT_S:-900}"

die() {
    echo "sdk-check: $*" >&2
    exit 2
}

[ $# -ge 1 ] || die "usage: $0 SDK_SOURCES [CLASS ...] (SDK_SOURCES: a checkout of the SDK's repository)"
sdk_dir="$(cd "$1" && pwd)" || die "SDK_SOURCES '$1' is not a directory"
shift
if [ -d "$sdk_dir/tablestore/src/test/java" ]; then
    test_src="$sdk_dir/tablestore/src/test/java"
elif [ -d "$sdk_dir/src/test/java" ]; then
    test_src="$sdk_dir/src/test/java"
else
    die "no src/test/java under '$sdk_dir' or '$sdk_dir/tablestore': pass the SDK repository's checkout"
fi

here="$(cd "$(dirname "$0")" && pwd)"
module="$(cd "$here/.." && pwd)"
jar="${EMULATOR_JAR:-$module/target/tablestore-emulator.jar}"
[ -n "${EMULATOR_ENDPOINT:-}" ] || [ -f "$jar" ] || die "$jar is missing: build it with 'mvn -pl tablestore-emulator package -DskipTests'"

classes=("${SELECTION[@]}")
if [ $# -gt 0 ]; then
    classes=()
    for c in "$@"; do
        if [[ "$c" == *.* ]]; then
            classes+=("$c")
        else
            match=""
            for s in "${SELECTION[@]}"; do [ "${s##*.}" = "$c" ] && match="$s"; done
            [ -n "$match" ] || die "'$c' is not in the selection; give its qualified name"
            classes+=("$match")
        fi
    done
fi

work="${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sdk-check.XXXXXX")}"
mkdir -p "$work/classes" "$work/logs" "$work/src/test/resources"
echo "sdk-check: work directory $work"

# 1. Class path: the SDK jar, JUnit 4 and the helpers' dependencies, from the local Maven
#    repository (resolved into it by Maven when missing).
cat > "$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.check</groupId>
  <artifactId>sdk-check</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>com.aliyun.openservices</groupId><artifactId>tablestore</artifactId><version>$SDK_VERSION</version></dependency>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>$JUNIT_VERSION</version></dependency>
    <dependency><groupId>commons-logging</groupId><artifactId>commons-logging</artifactId><version>1.2</version></dependency>
    <dependency><groupId>commons-io</groupId><artifactId>commons-io</artifactId><version>2.4</version></dependency>
  </dependencies>
</project>
EOF
(cd "$work" && mvn -B -q dependency:build-classpath -Dmdep.outputFile=cp.txt > logs/maven.log 2>&1) \
    || die "resolving the class path failed, see $work/logs/maven.log"
cp="$(cat "$work/cp.txt")"

# 2. Compile the selected classes; javac takes the helpers they use from the same source tree.
sources=()
for c in "${classes[@]}"; do
    f="$test_src/${c//.//}.java"
    [ -f "$f" ] || die "$f is missing: is '$sdk_dir' the SDK's repository?"
    sources+=("$f")
done
javac -nowarn -encoding UTF-8 -proc:none -d "$work/classes" -cp "$cp" -sourcepath "$test_src" \
    "${sources[@]}" > "$work/logs/javac.log" 2>&1 \
    || die "compiling the tests failed, see $work/logs/javac.log"

# 3. Start the emulator on a free port, with EMULATOR_ARGS if given, and read its endpoint from the
#    ready line (or use the running emulator EMULATOR_ENDPOINT names, with the default instance
#    and key).
if [ -n "${EMULATOR_ENDPOINT:-}" ]; then
    endpoint="$EMULATOR_ENDPOINT"
else
    # shellcheck disable=SC2086 # EMULATOR_ARGS is a list of options
    java -jar "$jar" --port 0 ${EMULATOR_ARGS:-} > "$work/logs/emulator.out" 2> "$work/logs/emulator.err" &
    emulator_pid=$!
    trap 'kill "$emulator_pid" 2>/dev/null || true' EXIT
    endpoint=""
    for _ in $(seq 1 300); do
        endpoint="$(sed -n 's/^tablestore-emulator ready endpoint=\([^ ]*\) .*/\1/p' "$work/logs/emulator.out")"
        [ -n "$endpoint" ] && break
        kill -0 "$emulator_pid" 2>/dev/null || die "the emulator exited, see $work/logs/emulator.err"
        sleep 0.1
    done
    [ -n "$endpoint" ] || die "no ready line from the emulator in 30 s, see $work/logs/emulator.err"
fi
echo "sdk-check: emulator at $endpoint"

# 4. The tests read src/test/resources/conf.properties relative to their working directory
#    (ServiceSettings); the emulator's defaults are instance 'emulator', key 'emulator-id'.
cat > "$work/src/test/resources/conf.properties" <<EOF
ots.endpoint=$endpoint
ots.accesskeyid=emulator-id
ots.accesskeysecret=emulator-secret
ots.instancename=emulator
ots.instancenameinternal=emulator
OtsEndpoint=$endpoint
AccessId=emulator-id
AccessKey=emulator-secret
InstanceName=emulator
EOF

# 5. Run each class with JUnit 4's console runner; count from its summary.
total_run=0
total_failed=0
printf '%-34s %5s %6s %6s  %s\n' CLASS TESTS PASSED FAILED NOTE
for c in "${classes[@]}"; do
    log="$work/logs/${c##*.}.log"
    note=""
    set +e
    (cd "$work" && timeout "$CLASS_TIMEOUT_S" java -Xmx1g -cp "$work/classes:$cp" \
        org.junit.runner.JUnitCore "$c") > "$log" 2>&1
    rc=$?
    set -e
    if ok="$(grep -o '^OK ([0-9]* tests\?)' "$log")"; then
        run="$(echo "$ok" | grep -o '[0-9]*')"
        failed=0
    elif summary="$(grep -o '^Tests run: [0-9]*,  Failures: [0-9]*' "$log")"; then
        run="$(echo "$summary" | sed 's/Tests run: \([0-9]*\),.*/\1/')"
        failed="$(echo "$summary" | sed 's/.*Failures: \([0-9]*\)/\1/')"
    else
        # Killed by the timeout (or the JVM died): every test it started counts as failed.
        run="$(sed -n '/^JUnit version/{n;p;q}' "$log" | tr -cd '.' | wc -c)"
        [ "$run" -gt 0 ] || run=1
        failed="$run"
        note="no summary (exit $rc; $CLASS_TIMEOUT_S s limit): every test it started counted failed"
    fi
    total_run=$((total_run + run))
    total_failed=$((total_failed + failed))
    printf '%-34s %5d %6d %6d  %s\n' "${c##*.}" "$run" "$((run - failed))" "$failed" "$note"
done
passed=$((total_run - total_failed))
printf '%-34s %5d %6d %6d\n' TOTAL "$total_run" "$passed" "$total_failed"
if [ "$total_run" -gt 0 ]; then
    awk -v p="$passed" -v t="$total_run" 'BEGIN { printf "pass rate: %.1f %% (%d of %d)\n", 100 * p / t, p, t }'
fi

# 6. Each failure with the first line of its cause; full traces are in the class's log.
echo
echo "failures (test: first line of the failure):"
for c in "${classes[@]}"; do
    awk -v cls="${c##*.}" '
        /^[0-9]+\) [A-Za-z0-9_]+\(/ { name = $2; sub(/\(.*/, "", name); grab = 1; next }
        grab { printf "  %s.%s: %s\n", cls, name, substr($0, 1, 240); grab = 0 }
    ' "$work/logs/${c##*.}.log"
done
echo "sdk-check: traces in $work/logs/<class>.log"
