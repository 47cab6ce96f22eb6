package io.tablestorecdc.checkpoint.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableSelectionTest {

    private static final String META = "tablestore_cdc_meta";

    private static Map<String, String> withTables(String key, String value) {
        Map<String, String> m = SourceSettingsTest.required();
        m.remove("table.name");
        m.put(key, value);
        return m;
    }

    @Test
    void oneTableIsASingleSourceAsBefore() {
        SourceSettings s = SourceSettingsTest.parse(SourceSettingsTest.required());

        assertThat(s.selection().single()).isTrue();
        assertThat(s.tableName()).isEqualTo("orders");
        assertThat(s.selection().discovers()).isFalse();
        assertThat(s.describe()).contains(", table.name=orders, tunnel.name=orders_cdc");
    }

    @Test
    void aDroppedTableIsSkippedUnlessTheSourceIsToldToFail() {
        assertThat(
                        SourceSettingsTest.parse(withTables("table.name", "a,b"))
                                .selection()
                                .onDroppedTable())
                .isEqualTo(DroppedTablePolicy.SKIP);
        Map<String, String> strict = withTables("table.pattern", "orders_.*");
        strict.put("on.dropped.table", "FAIL");
        SourceSettings s = SourceSettingsTest.parse(strict);
        assertThat(s.selection().onDroppedTable()).isEqualTo(DroppedTablePolicy.FAIL);
        assertThat(s.describe()).contains("on.dropped.table=fail");
        assertThat(DroppedTablePolicy.dropped("orders_1", "shop").getMessage())
                .contains("Table 'orders_1' of instance 'shop' is gone (dropped)")
                .contains("on.dropped.table=skip");

        Map<String, String> bad = withTables("table.name", "a,b");
        bad.put("on.dropped.table", "ignore");
        assertThatThrownBy(() -> SourceSettingsTest.parse(bad))
                .hasMessageContaining("on.dropped.table")
                .hasMessageContaining("skip");
    }

    @Test
    void aListIsReadInOrderAndEachTableHasItsOwnSettings() {
        SourceSettings s =
                SourceSettingsTest.parse(withTables("table.name", " orders , users,items "));

        assertThat(s.selection().single()).isFalse();
        assertThat(s.selection().listed()).containsExactly("orders", "users", "items");
        assertThat(s.describe()).contains("table.name=orders,users,items, tunnel.name=orders_cdc");
        assertThatThrownBy(s::tableName)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("forTable");
        SourceSettings users = s.forTable("users");
        assertThat(users.tableName()).isEqualTo("users");
        assertThat(users.selection().single()).isTrue();
        assertThat(users.tunnelName()).isEqualTo(s.tunnelName());
        assertThat(users.metaTable()).isEqualTo(s.metaTable());
        assertThat(users.credentials()).isEqualTo(s.credentials());
        assertThat(users.connection().tableName()).isEqualTo("users");
    }

    @Test
    void aPatternSelectsWholeNamesButExcludedOnesAndNeverTheMetaTable() {
        Map<String, String> m = withTables("table.pattern", "orders_.*|tablestore_cdc_.*");
        m.put("table.exclude", ".*_archive");
        m.put("table.discovery.interval", "30s");
        TableSelection selection = SourceSettingsTest.parse(m).selection();

        assertThat(selection.single()).isFalse();
        assertThat(selection.discoveryInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(selection.discovers()).isTrue();
        assertThat(
                        selection.resolve(
                                List.of(
                                        "orders_eu",
                                        "my_orders_us",
                                        "orders_2024_archive",
                                        "orders_asia",
                                        META,
                                        "users"),
                                META,
                                "inst"))
                .containsExactly("orders_asia", "orders_eu");
        assertThat(selection.selects("orders_new", META)).isTrue();
        assertThat(selection.selects("xorders_new", META)).isFalse();
    }

    @Test
    void aPatternMatchingOneTableIsStillAMultiTableSource() {
        TableSelection selection =
                SourceSettingsTest.parse(withTables("table.pattern", "orders")).selection();

        assertThat(selection.single()).isFalse();
        assertThat(selection.discoveryInterval())
                .isEqualTo(TableSelection.DEFAULT_DISCOVERY_INTERVAL);
        assertThat(
                        SourceOption.TABLE_DISCOVERY_INTERVAL
                                .defaultValue()
                                .flatMap(OptionValues::parseDuration))
                .contains(TableSelection.DEFAULT_DISCOVERY_INTERVAL);
    }

    @Test
    void zeroDiscoveryIntervalListsTablesOnlyAtStart() {
        Map<String, String> m = withTables("table.pattern", "orders_.*");
        m.put("table.discovery.interval", "0s");

        assertThat(SourceSettingsTest.parse(m).selection().discovers()).isFalse();
    }

    @Test
    void aPatternThatSelectsNothingNamesThePatternTheTablesAndTheFix() {
        TableSelection selection =
                SourceSettingsTest.parse(withTables("table.pattern", "order")).selection();

        assertThatThrownBy(() -> selection.resolve(List.of("orders", "users", META), META, "inst"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Option 'table.pattern' = 'order' selects no table of instance 'inst' (the"
                                + " pattern must match a whole table name; the meta table"
                                + " 'tablestore_cdc_meta' is never read). Its tables: orders,"
                                + " tablestore_cdc_meta, users. Fix the pattern, or create a"
                                + " matching table first.");
    }

    @Test
    void aListedTableThatDoesNotExistIsNamed() {
        TableSelection selection =
                SourceSettingsTest.parse(withTables("table.name", "orders,userz,itemz"))
                        .selection();

        assertThatThrownBy(() -> selection.resolve(List.of("orders", "users"), META, "inst"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Option 'table.name' names tables that instance 'inst' does not hold:"
                                + " userz, itemz. Its tables: orders, users. Create the table,"
                                + " or fix the name.");
        assertThat(
                        SourceSettingsTest.parse(withTables("table.name", "users,orders"))
                                .selection()
                                .resolve(List.of("orders", "users"), META, "inst"))
                .containsExactly("orders", "users");
    }

    @Test
    void badSelectionsAreAllReportedWithTheirFix() {
        Map<String, String> both = SourceSettingsTest.required();
        both.put("table.pattern", "orders_.*");
        assertThatThrownBy(() -> SourceSettingsTest.parse(both))
                .hasMessageContaining(
                        "Options 'table.name' and 'table.pattern' are both set: set table.name to"
                                + " read the tables it lists, or table.pattern to read every"
                                + " table whose name matches it, not both");

        Map<String, String> neither = SourceSettingsTest.required();
        neither.remove("table.name");
        assertThatThrownBy(() -> SourceSettingsTest.parse(neither))
                .hasMessageContaining(
                        "Missing required option 'table.name': set table.name somehow (or"
                                + " table.pattern to read every table whose name matches a"
                                + " regular expression)");

        Map<String, String> excludeAlone = SourceSettingsTest.with("table.exclude", "x.*");
        excludeAlone.put("table.discovery.interval", "5s");
        assertThatThrownBy(() -> SourceSettingsTest.parse(excludeAlone))
                .hasMessageContaining(
                        "Option 'table.exclude' applies only with table.pattern: set"
                                + " table.pattern, or remove table.exclude")
                .hasMessageContaining(
                        "Option 'table.discovery.interval' applies only with table.pattern");

        assertThatThrownBy(() -> SourceSettingsTest.parse(withTables("table.pattern", "orders(")))
                .hasMessageContaining(
                        "Option 'table.pattern' has invalid value 'orders(': it is not a Java"
                                + " regular expression (Unclosed group near index 7)");

        assertThatThrownBy(() -> SourceSettingsTest.parse(withTables("table.name", "orders,,x")))
                .hasMessageContaining(
                        "Option 'table.name' has invalid value 'orders,,x': it holds an empty"
                                + " table name");
        assertThatThrownBy(
                        () -> SourceSettingsTest.parse(withTables("table.name", "orders,orders")))
                .hasMessageContaining("table 'orders' is listed twice");

        Map<String, String> badInterval = withTables("table.pattern", "o.*");
        badInterval.put("table.discovery.interval", "soon");
        assertThatThrownBy(() -> SourceSettingsTest.parse(badInterval))
                .hasMessageContaining("Option 'table.discovery.interval' has invalid value 'soon'");
    }

    @Test
    void aPatternGivenAsTableNameIsPointedToTablePattern() {
        assertThatThrownBy(() -> SourceSettingsTest.parse(withTables("table.name", "orders_.*")))
                .hasMessageContaining(
                        "'orders_.*' is not a table name (a table name holds letters, digits and"
                                + " underscores); to read every table whose name matches a"
                                + " regular expression, set table.pattern = 'orders_.*' instead"
                                + " of table.name");
        assertThat(SourceSettingsTest.parse(withTables("table.name", "orders_2025")).tableName())
                .isEqualTo("orders_2025");
    }

    @Test
    void theMetaTableCannotBeListed() {
        TableSelection selection =
                SourceSettingsTest.parse(withTables("table.name", "orders," + META)).selection();

        assertThatThrownBy(() -> selection.resolve(List.of("orders", META), META, "inst"))
                .hasMessageContaining("names the meta table 'tablestore_cdc_meta'");
    }

    @Test
    void oneTablesSettingsSurviveSerialization() throws Exception {
        SourceSettings users =
                SourceSettingsTest.parse(withTables("table.pattern", "users|orders"))
                        .forTable("users");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(users);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(users);
        }
        TableSelection pattern =
                SourceSettingsTest.parse(withTables("table.pattern", "users|orders")).selection();
        bytes.reset();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(pattern);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            TableSelection back = (TableSelection) in.readObject();
            assertThat(back.selects("users", META)).isTrue();
            assertThat(back.selects("items", META)).isFalse();
        }
    }
}
