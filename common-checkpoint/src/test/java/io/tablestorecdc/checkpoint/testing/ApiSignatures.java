package io.tablestorecdc.checkpoint.testing;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The API boundary: a public type marked as API names, in its public and protected signatures, no
 * type of the project that is not API itself. Used by each module's architecture test over its own
 * classes, with the project's and Flink's stability annotations.
 */
public final class ApiSignatures {

    /** The stability annotations a public type of the project carries. */
    public static final Set<String> API_ANNOTATIONS =
            Set.of(
                    "io.tablestorecdc.checkpoint.annotation.PublicEvolving",
                    "org.apache.flink.annotation.PublicEvolving",
                    "org.apache.flink.annotation.Public",
                    "org.apache.flink.annotation.Experimental");

    private static final Set<String> INTERNAL_ANNOTATIONS =
            Set.of(
                    "io.tablestorecdc.checkpoint.annotation.Internal",
                    "org.apache.flink.annotation.Internal");

    /** A member of an API type marked for the project's own use, as Flink marks its own. */
    private static final Set<String> MEMBER_EXEMPTIONS =
            Set.of(
                    "org.apache.flink.annotation.Internal",
                    "org.apache.flink.annotation.VisibleForTesting");

    private static final String PROJECT = "io.tablestorecdc.";

    private ApiSignatures() {}

    /** Whether {@code type}, or the type it is nested in, is marked as API. */
    public static boolean isApi(JavaClass type) {
        JavaClass top = topLevel(type);
        return API_ANNOTATIONS.stream().anyMatch(top::isAnnotatedWith);
    }

    /** The public top-level types of the project among {@code classes} marked neither way. */
    public static List<String> unmarked(JavaClasses classes) {
        List<String> unmarked = new ArrayList<>();
        for (JavaClass type : classes) {
            if (type.isTopLevelClass()
                    && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && !type.isAnnotation()
                    && !type.getSimpleName().equals("package-info")
                    && API_ANNOTATIONS.stream().noneMatch(type::isAnnotatedWith)
                    && INTERNAL_ANNOTATIONS.stream().noneMatch(type::isAnnotatedWith)) {
                unmarked.add(type.getName());
            }
        }
        return unmarked;
    }

    /**
     * Each public or protected member of an API type among {@code classes} that names a project
     * type which is not API: {@code Owner#member names Type}.
     */
    public static List<String> leaks(JavaClasses classes, Predicate<JavaClass> exempt) {
        Set<String> leaks = new TreeSet<>();
        for (JavaClass type : classes) {
            if (!isApi(type) || !visible(type.getModifiers()) || exempt.test(type)) {
                continue;
            }
            for (JavaCodeUnit unit : type.getCodeUnits()) {
                if (!visible(unit.getModifiers())
                        || unit.getName().startsWith("lambda$")
                        || MEMBER_EXEMPTIONS.stream().anyMatch(unit::isAnnotatedWith)
                        || implementsEngineMethod(type, unit)) {
                    continue;
                }
                unit.getRawParameterTypes().forEach(t -> check(type, unit.getName(), t, leaks));
                check(type, unit.getName(), unit.getRawReturnType(), leaks);
            }
            for (JavaField field : type.getFields()) {
                if (visible(field.getModifiers())) {
                    check(type, field.getName(), field.getRawType(), leaks);
                }
            }
        }
        return new ArrayList<>(leaks);
    }

    /**
     * Whether {@code unit} implements a method an engine's interface or class declares (a Flink
     * {@code Source}'s {@code restoreEnumerator} names the source's own state type, as every Flink
     * source's does).
     */
    private static boolean implementsEngineMethod(JavaClass type, JavaCodeUnit unit) {
        List<JavaClass> supertypes = new ArrayList<>(type.getAllRawInterfaces());
        supertypes.addAll(type.getAllRawSuperclasses());
        for (JavaClass supertype : supertypes) {
            if (!supertype.getName().startsWith(PROJECT)
                    && supertype.getMethods().stream()
                            .anyMatch(
                                    m ->
                                            m.getName().equals(unit.getName())
                                                    && m.getRawParameterTypes().size()
                                                            == unit.getRawParameterTypes()
                                                                    .size())) {
                return true;
            }
        }
        return false;
    }

    private static void check(JavaClass owner, String member, JavaClass named, Set<String> leaks) {
        JavaClass base = named.isArray() ? named.getBaseComponentType() : named;
        if (base.getName().startsWith(PROJECT) && !isApi(base)) {
            leaks.add(owner.getName() + "#" + member + " names " + base.getName());
        }
    }

    private static boolean visible(Set<JavaModifier> modifiers) {
        return modifiers.contains(JavaModifier.PUBLIC)
                || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static JavaClass topLevel(JavaClass type) {
        JavaClass top = type;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }
}
