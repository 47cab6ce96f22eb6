package io.tablestorecdc.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line's parsing, help and exit codes, with nothing to talk to. */
class TablestoreCdcCliTest {

    private static final String[] TARGET = {
        "--endpoint", "http://127.0.0.1:1", "--instance", "i", "--table", "t"
    };

    @TempDir Path dir;

    private static CliRun run(String... args) {
        return CliRun.run(Clock.systemUTC(), args);
    }

    @Test
    void helpNamesEveryCommandAndTheExitCodes() {
        CliRun help = run("--help");

        assertThat(help.exitCode()).isZero();
        assertThat(help.out())
                .contains("tunnels", "describe", "lag", "lease", "meta", "reprocess")
                .contains("Exit codes:", "2   bad usage", "3   the service refused");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"tunnels", "describe", "lag", "lease release", "meta purge", "reprocess"})
    void everyCommandHasHelpWithTheCommonOptions(String command) {
        CliRun help = run((command + " --help").split(" "));

        assertThat(help.exitCode()).as(help.toString()).isZero();
        assertThat(help.out())
                .contains("--endpoint", "--instance", "--meta-table", "tablestore_cdc_meta")
                .contains("--credentials-provider", "--credentials-file");
    }

    @Test
    void theEndpointAndInstanceComeFromTheEnvironmentWhenNotGiven() {
        CliRun missing = run("describe", "--table", "t", "--tunnel", "x");
        assertThat(missing.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(missing.err())
                .contains(
                        "Missing required option '--endpoint': give --endpoint URL or set"
                                + " TABLESTORE_ENDPOINT");

        CliRun current =
                CliRun.runWithEnv(
                        Map.of("TABLESTORE_ENDPOINT", "http://127.0.0.1:1"),
                        Clock.systemUTC(),
                        "describe",
                        "--table",
                        "t",
                        "--tunnel",
                        "x");
        assertThat(current.err())
                .contains(
                        "Missing required option '--instance': give --instance NAME or set"
                                + " TABLESTORE_INSTANCE")
                .doesNotContain("deprecated");
    }

    @Test
    void theFormerVariablesStillWorkAndNameTheNewOnes() {
        CliRun former =
                CliRun.runWithEnv(
                        Map.of(
                                "TABLESTORE_CDC_ENDPOINT", "http://127.0.0.1:1",
                                "TABLESTORE_CDC_INSTANCE", "i"),
                        Clock.systemUTC(),
                        "describe",
                        "--table",
                        "t",
                        "--tunnel",
                        "x");

        assertThat(former.err())
                .contains("TABLESTORE_CDC_ENDPOINT is deprecated: set TABLESTORE_ENDPOINT instead.")
                .contains("TABLESTORE_CDC_INSTANCE is deprecated: set TABLESTORE_INSTANCE instead.")
                .doesNotContain("Missing required option");
    }

    @Test
    void aMissingOptionIsAUsageError() {
        CliRun run = run("describe", "--endpoint", "http://127.0.0.1:1", "--instance", "i");

        assertThat(run.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(run.err()).contains("Missing required option", "--table", "--tunnel");
    }

    @Test
    void noCommandAndAnUnknownCommandAreUsageErrors() {
        assertThat(run().exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(run("lease").exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        CliRun unknown = run("rewind");
        assertThat(unknown.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(unknown.err()).contains("Unknown option or argument");
    }

    @Test
    void aBadDurationOrInstantIsAUsageErrorThatShowsTheForm() {
        CliRun lag = run(args("lag", "--tunnel", "n", "--max-lag", "five minutes"));
        CliRun reprocess = run(args("reprocess", "--new-tunnel", "n", "--from", "yesterday"));
        CliRun future =
                run(args("reprocess", "--new-tunnel", "n", "--from", "2999-01-01T00:00:00Z"));

        assertThat(lag.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(lag.err()).contains("90s, 5m, 1h");
        assertThat(reprocess.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(reprocess.err()).contains("2026-05-01T00:00:00Z");
        assertThat(future.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(future.err()).contains("in the future");
    }

    @Test
    void aTableSelectionIsCheckedAsTheSourcesCheckTheirsBeforeAnythingIsSent() {
        CliRun both = run(selecting("describe", "--table", "a", "--table-pattern", "a.*"));
        CliRun neither = run(selecting("lag"));
        CliRun excludeAlone = run(selecting("lag", "--table", "a,b", "--table-exclude", "b"));
        CliRun notARegex = run(selecting("describe", "--table-pattern", "orders_("));
        CliRun twice = run(selecting("lag", "--table", "a,b,a"));
        CliRun emptyName = run(selecting("describe", "--table", "a,,b"));
        CliRun twoProblems = run(selecting("lag", "--table-pattern", "(", "--table-exclude", "["));

        assertThat(both.err())
                .contains(
                        "Error: Options '--table' and '--table-pattern' are both set: set --table"
                                + " to read the tables it lists, or --table-pattern to read every"
                                + " table whose name matches it, not both");
        assertThat(neither.err())
                .contains(
                        "Error: Missing required option '--table': give a table, or a"
                                + " comma-separated list of the tables of one source (or"
                                + " --table-pattern to read every table whose name matches a"
                                + " regular expression)");
        assertThat(excludeAlone.err())
                .contains(
                        "Error: Option '--table-exclude' applies only with --table-pattern: set"
                                + " --table-pattern, or remove --table-exclude");
        assertThat(notARegex.err())
                .contains(
                        "Error: Option '--table-pattern' has invalid value 'orders_(': it is not a"
                                + " Java regular expression");
        assertThat(twice.err())
                .contains(
                        "Error: Option '--table' has invalid value 'a,b,a': table 'a' is listed"
                                + " twice; list each table once");
        assertThat(emptyName.err()).contains("it holds an empty table name", "orders,users");
        assertThat(twoProblems.err())
                .contains(
                        "Error: The table options are wrong:\n  - Option '--table-pattern' has"
                                + " invalid value '('",
                        "\n  - Option '--table-exclude' has invalid value '['");
        for (CliRun run :
                List.of(both, neither, excludeAlone, notARegex, twice, emptyName, twoProblems)) {
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(TablestoreCdcCli.USAGE);
            assertThat(run.out()).isEmpty();
            assertThat(run.err())
                    .doesNotContain("table.name", "table.pattern", "table.exclude")
                    .contains("--help");
        }
    }

    @Test
    void theSourcesOptionKeysInAPatternAreLeftAsGiven() {
        CliRun run = run(selecting("lag", "--table-pattern", "table.name(", "--table", "x"));

        assertThat(run.err())
                .contains("Option '--table-pattern' has invalid value 'table.name('")
                .contains("Options '--table' and '--table-pattern' are both set");
    }

    /** A command with a tunnel and a target that cannot be reached, then {@code more}. */
    private static String[] selecting(String command, String... more) {
        List<String> all =
                new ArrayList<>(
                        List.of(
                                command,
                                "--endpoint",
                                "http://127.0.0.1:1",
                                "--instance",
                                "i",
                                "--tunnel",
                                "n"));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void credentialsComeFromOnePlaceAndAFileNeedsBothKeys() throws IOException {
        Path file = Files.writeString(dir.resolve("key.properties"), "access.key.id=id\n");

        CliRun both =
                run(
                        args(
                                "tunnels",
                                "--credentials-file",
                                file.toString(),
                                "--credentials-provider",
                                "env"));
        CliRun incomplete = run(args("tunnels", "--credentials-file", file.toString()));
        CliRun missing = run(args("tunnels", "--credentials-file", dir.resolve("no").toString()));
        CliRun staticProvider = run(args("tunnels", "--credentials-provider", "static"));
        CliRun notAClass = run(args("tunnels", "--credentials-provider", "com.example.Nope"));

        assertThat(both.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(both.err()).contains("give one of them");
        assertThat(incomplete.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(incomplete.err()).contains("has no access.key.secret");
        assertThat(missing.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(missing.err()).contains("Cannot read the credentials file");
        assertThat(staticProvider.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(staticProvider.err()).contains("--credentials-file");
        assertThat(notAClass.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(notAClass.err()).contains("com.example.Nope");
    }

    @Test
    void theEnvironmentProviderNamesTheVariablesToSetWhenTheyAreMissing() {
        assumeTrue(System.getenv("ALIBABA_CLOUD_ACCESS_KEY_ID") == null, "variables unset");

        CliRun run = run(args("tunnels"));

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(run.err()).contains("ALIBABA_CLOUD_ACCESS_KEY_ID");
    }

    @Test
    void aSecretIsNotAnOption() {
        CliRun run = run(args("tunnels", "--access-key-secret", "s3cret"));

        assertThat(run.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
        assertThat(run.err())
                .contains("Unknown option", "--access-key-secret", "--credentials-file")
                .doesNotContain("s3cret");
    }

    @Test
    void durationsReadAsOperatorsWriteThem() {
        LagCommand.DurationConverter convert = new LagCommand.DurationConverter();

        assertThat(convert.convert("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(convert.convert("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(convert.convert("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(convert.convert("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(convert.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(convert.convert("PT5M")).isEqualTo(Duration.ofMinutes(5));
        assertThatThrownBy(() -> convert.convert("5 minutes"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Texts.duration(Duration.ofSeconds(3_725))).isEqualTo("1h2m5s");
        assertThat(Texts.duration(Duration.ZERO)).isEqualTo("0s");
        assertThat(Texts.duration(Duration.ofMillis(250))).isEqualTo("250ms");
    }

    @Test
    void prometheusLabelValuesAreEscaped() {
        assertThat(LagCommand.label("a\"b\\c\nd")).isEqualTo("a\\\"b\\\\c\\nd");
    }

    private static String[] args(String command, String... more) {
        String[] all = new String[1 + TARGET.length + more.length];
        all[0] = command;
        System.arraycopy(TARGET, 0, all, 1, TARGET.length);
        System.arraycopy(more, 0, all, 1 + TARGET.length, more.length);
        return all;
    }
}
