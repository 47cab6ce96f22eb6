package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConvertedPageTest {

    private static final byte[] UTF8 = "ça-😀".getBytes(StandardCharsets.UTF_8);

    private static final List<ChangeRecord> RECORDS =
            List.of(
                    new ChangeRecord(
                            Action.PUT,
                            List.of(
                                    new ChangeRecord.PrimaryKeyColumn(
                                            "user", CellValue.ofString("ça-😀", UTF8)),
                                    new ChangeRecord.PrimaryKeyColumn(
                                            "seq", CellValue.ofInteger(42)),
                                    new ChangeRecord.PrimaryKeyColumn(
                                            "tag", CellValue.ofBinary(new byte[] {1, 2}))),
                            List.of(
                                    new ColumnChange(
                                            "s", ColumnOperation.PUT, CellValue.ofString("x"), 1),
                                    new ColumnChange(
                                            "d", ColumnOperation.PUT, CellValue.ofDouble(0.5), 2),
                                    new ColumnChange(
                                            "b",
                                            ColumnOperation.PUT,
                                            CellValue.ofBoolean(true),
                                            3)),
                            new SequenceInfo(1, 100L, 3),
                            "ch-1"),
                    new ChangeRecord(
                            Action.UPDATE,
                            List.of(
                                    new ChangeRecord.PrimaryKeyColumn(
                                            "user", CellValue.ofString("u2"))),
                            List.of(
                                    new ColumnChange(
                                            "old", ColumnOperation.DELETE_ONE_VERSION, null, 4),
                                    new ColumnChange(
                                            "gone", ColumnOperation.DELETE_ALL_VERSION, null, 0)),
                            SequenceInfo.NONE,
                            "ch-1"),
                    new ChangeRecord(
                            Action.DELETE,
                            List.of(
                                    new ChangeRecord.PrimaryKeyColumn(
                                            "user", CellValue.ofString("u3"))),
                            List.of(),
                            new SequenceInfo(1, 101L, 0),
                            "ch-2"));

    @Test
    void visitingWithTheBuilderRebuildsEveryRecord() {
        RecordPage page = RecordPage.of(RECORDS);

        assertThat(page.size()).isEqualTo(RECORDS.size());
        for (int i = 0; i < page.size(); i++) {
            ChangeRecordBuilder builder = new ChangeRecordBuilder();
            page.visit(i, builder);

            assertThat(builder.build()).as("record %d", i).isEqualTo(RECORDS.get(i));
            assertThat(page.record(i)).isEqualTo(RECORDS.get(i));
            assertThat(page.sequence(i)).isEqualTo(RECORDS.get(i).sequence());
        }
    }

    @Test
    void visitingKeepsAStringsUtf8Bytes() {
        ChangeRecordBuilder builder = new ChangeRecordBuilder();
        RecordPage.of(RECORDS).visit(0, builder);

        assertThat(builder.build().primaryKey().get(0).value().utf8()).isSameAs(UTF8);
    }

    @Test
    void theListViewIsTheRecordsAndAReadResultServesThem() {
        RecordPage page = RecordPage.of(RECORDS);

        assertThat(page.asList()).isEqualTo(RECORDS);
        assertThat(new ReadResult(RECORDS, ChannelPosition.finished(), false).records())
                .isEqualTo(RECORDS);
    }
}
