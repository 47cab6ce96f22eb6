package io.tablestorecdc.flink.table.tablestore;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import io.tablestorecdc.checkpoint.testing.OptionTable;
import io.tablestorecdc.flink.sink.TablestoreSinkOptions;
import io.tablestorecdc.flink.table.TablestoreTableFactory;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.factories.Factory;
import org.junit.jupiter.api.Test;

/**
 * The option tables of {@code 'connector' = 'tablestore'} in docs/tablestore-table.md are generated
 * from the declarations, and the page names every option the factories take.
 */
class TablestoreConnectorDocsTest {

    private static final Set<String> CONNECTION =
            Set.of(
                    "endpoint",
                    "instance.name",
                    "access.key.id",
                    "access.key.secret",
                    "sts.token",
                    "credentials.provider",
                    "credentials.ecs.role.name",
                    "credentials.ecs.metadata.endpoint",
                    "table.name");

    @Test
    void theTablesAreGeneratedFromTheDeclarations() throws Exception {
        GeneratedDocs.check(
                GeneratedDocs.page("tablestore-table.md"),
                "flink-sink-options",
                OptionTable.markdown(TablestoreSinkOptions.DECLARED));
        GeneratedDocs.check(
                GeneratedDocs.page("tablestore-table.md"),
                "flink-scan-options",
                OptionTable.markdown(List.of(TablestoreTableOptions.SCAN_SPLIT_SIZE_SPEC)));
        GeneratedDocs.check(
                GeneratedDocs.page("tablestore-table.md"),
                "flink-lookup-options",
                OptionTable.markdown(List.of(TablestoreTableOptions.LOOKUP_ASYNC_SPEC)));
    }

    @Test
    void everyOptionTheFactoriesTakeIsOnThePage() throws Exception {
        String page = Files.readString(GeneratedDocs.page("tablestore-table.md"));
        Set<String> taken = new TreeSet<>();
        keys(new TablestoreTableFactory(), taken);
        taken.removeAll(CONNECTION);
        for (String key : taken) {
            assertThat(page).as(key).contains("`" + key + "`");
        }
        Set<String> declared = new TreeSet<>();
        TablestoreSinkOptions.DECLARED.stream().map(OptionSpec::key).forEach(declared::add);
        declared.add(TablestoreTableOptions.SCAN_SPLIT_SIZE.key());
        declared.add(TablestoreTableOptions.LOOKUP_ASYNC.key());
        assertThat(taken).containsAll(declared);
    }

    private static void keys(Factory factory, Set<String> into) {
        factory.requiredOptions().stream().map(ConfigOption::key).forEach(into::add);
        factory.optionalOptions().stream().map(ConfigOption::key).forEach(into::add);
    }
}
