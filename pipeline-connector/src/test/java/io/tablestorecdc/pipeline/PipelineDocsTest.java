package io.tablestorecdc.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.cdc.common.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/** docs/pipeline.md lists exactly the options the factory takes. */
class PipelineDocsTest {

    private static final Pattern KEY = Pattern.compile("`([a-z.<>]+)`");

    @Test
    void theOptionsTableNamesEveryOptionOfTheFactoryAndNoOther() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "pipeline.md"));
        String options =
                page.substring(page.indexOf("## Options"), page.indexOf("## Schema modes"));
        Set<String> documented = new TreeSet<>();
        for (String line : options.split("\n")) {
            if (line.startsWith("| `")) {
                Matcher keys = KEY.matcher(line.split("\\|")[1]);
                while (keys.find()) {
                    documented.add(keys.group(1));
                }
            }
        }
        TablestoreDataSourceFactory factory = new TablestoreDataSourceFactory();
        Set<String> taken = new TreeSet<>();
        factory.requiredOptions().stream().map(ConfigOption::key).forEach(taken::add);
        factory.optionalOptions().stream().map(ConfigOption::key).forEach(taken::add);
        taken.add(PipelineOptions.SCHEMA_COLUMNS_PREFIX + "<table>");

        assertThat(documented).isEqualTo(taken);
    }
}
