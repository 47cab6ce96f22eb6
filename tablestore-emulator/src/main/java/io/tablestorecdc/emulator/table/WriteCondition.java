package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import java.util.Optional;

/**
 * A write's condition: the expected row existence and an optional column condition, both checked
 * against the row's current state under the table's write lock.
 */
public record WriteCondition(RowExistenceExpectation existence, Optional<RowFilter> columns) {

    public static final WriteCondition IGNORE =
            new WriteCondition(RowExistenceExpectation.IGNORE, Optional.empty());

    /** Whether the condition holds for the current row (empty = the row does not exist). */
    boolean holdsFor(Optional<StoredRow> current) {
        boolean existenceOk =
                switch (existence) {
                    case IGNORE -> true;
                    case EXPECT_EXIST -> current.isPresent();
                    case EXPECT_NOT_EXIST -> current.isEmpty();
                };
        return existenceOk && columns.map(f -> f.test(current)).orElse(true);
    }
}
