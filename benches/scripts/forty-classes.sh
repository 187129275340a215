# The 40 commons-lang3 and guava classes (binary names, space-separated) that split-output.sh
# and lint-warnings.sh run on; sourced by them: sets FORTY_CLASSES.
# shellcheck shell=bash
L=org.apache.commons.lang3
G=com.google.common
FORTY_CLASSES="
$L.ArrayUtils $L.BitField $L.BooleanUtils $L.CharRange $L.CharSetUtils $L.CharUtils $L.ClassUtils
$L.Conversion $L.LocaleUtils $L.ObjectUtils $L.Range $L.RegExUtils $L.StringUtils $L.Validate
$L.builder.EqualsBuilder $L.builder.HashCodeBuilder $L.math.Fraction $L.math.NumberUtils
$L.mutable.MutableInt $L.mutable.MutableLong $L.text.StrTokenizer $L.text.WordUtils
$L.time.DurationFormatUtils $L.time.StopWatch $L.tuple.MutablePair $L.SerializationUtils
$G.base.Strings $G.base.Joiner $G.base.Splitter $G.base.CharMatcher $G.base.Ascii $G.base.Preconditions
$G.math.IntMath $G.math.LongMath $G.primitives.Ints $G.primitives.Longs $G.primitives.UnsignedInts
$G.net.HostAndPort $G.collect.Lists $G.base.CaseFormat"
unset L G
