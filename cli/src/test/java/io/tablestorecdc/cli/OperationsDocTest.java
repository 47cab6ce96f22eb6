package io.tablestorecdc.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/operations.md names only options the commands have, and shows describe as it prints. */
class OperationsDocTest {

    private static final Path PAGE = Path.of("..", "docs", "operations.md");

    private static final List<String> COMMANDS =
            List.of("tunnels", "describe", "lag", "lease release", "meta purge", "reprocess");

    @Test
    void everyOptionThePageNamesIsAnOptionOfACommand() throws IOException {
        String page = Files.readString(PAGE);
        StringBuilder help = new StringBuilder(CliRun.run(Clock.systemUTC(), "--help").out());
        for (String command : COMMANDS) {
            help.append(CliRun.run(Clock.systemUTC(), (command + " --help").split(" ")).out());
        }
        TreeSet<String> named = new TreeSet<>();
        Matcher option = Pattern.compile("(?<![\\w-])--[a-z][a-z-]+").matcher(page);
        while (option.find()) {
            named.add(option.group());
        }

        assertThat(named).contains("--max-lag", "--force", "--yes", "--with-base", "--json");
        assertThat(named).allSatisfy(o -> assertThat(help).as(o).contains(o));
    }

    @Test
    void theDescribeExampleHasTheLayoutOfTheGoldenOutput() throws IOException {
        String page = Files.readString(PAGE);
        String example = block(page, "### `describe --table T --tunnel N`");
        List<String> golden;
        try (InputStream in = OperationsDocTest.class.getResourceAsStream("describe.txt")) {
            golden = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        List<String> shown = example.lines().toList();

        assertThat(shown).hasSameSizeAs(golden);
        for (int i = 0; i < golden.size(); i++) {
            assertThat(label(shown.get(i))).as(shown.get(i)).isEqualTo(label(golden.get(i)));
        }
        // The owner, meta-table and position lines, the table header and the last line alike.
        for (int i : new int[] {3, 4, 5, 7, golden.size() - 1}) {
            assertThat(shown.get(i)).isEqualTo(golden.get(i));
        }
    }

    /** A line's first word: what it is about. */
    private static String label(String line) {
        return line.strip().split("[: ]")[0];
    }

    private static String block(String page, String heading) {
        int at = page.indexOf(heading);
        int start = page.indexOf("```\n", at) + 4;
        return page.substring(start, page.indexOf("```\n", start));
    }
}
