// explain prints every rule in order, whether it selects the definition and
// which filter rejected it, then the final event or the reason there is none.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp explain --rules %t/rules.yaml %t/a.cpp:41 -- %cxxflags | FileCheck %s --check-prefix=NMS
// NMS:      a.cpp:41:5: vision::ops::nms (function)
// NMS-NEXT:   rule 'methods' (line {{[0-9]+}}): rejects: where 'method' but this is a function
// NMS-NEXT:   rule 'ops' (line {{[0-9]+}}): selects
// NMS-NEXT:   rule 'everything' (line {{[0-9]+}}): selects, but an earlier rule won
// NMS-NEXT:   => event 'vision.ops.nms' (rule 'ops'): missing; fix inserts it
// RUN: %apistamp explain --rules %t/rules.yaml --name vision::ops::detail::kernel %t/a.cpp -- %cxxflags | FileCheck %s --check-prefix=DETAIL
// DETAIL:      vision::ops::detail::kernel (function)
// DETAIL-NEXT:   rule 'methods' (line {{[0-9]+}}): rejects: where 'method' but this is a function
// DETAIL-NEXT:   rule 'ops' (line {{[0-9]+}}): rejects: namespace 'vision::ops' != 'vision::ops::detail'
// DETAIL-NEXT:   rule 'everything' (line {{[0-9]+}}): rejects: linkage is internal
// DETAIL-NEXT:   => not selected by any rule
// RUN: %apistamp explain --rules %t/rules.yaml --name vision::Reader %t/a.cpp -- %cxxflags | FileCheck %s --check-prefix=CTOR
// CTOR: vision::Reader::Reader (constructor)
// CTOR: => event 'vision.Reader' (rule 'everything'): present
// RUN: %exit-code %apistamp explain --rules %t/rules.yaml %t/a.cpp:1 -- %cxxflags 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: apistamp: error: no definition at {{.*}}a.cpp:1
// NONE: exit code: 2
// RUN: %exit-code %apistamp explain --rules %t/rules.yaml %t/a.cpp -- %cxxflags 2>&1 | FileCheck %s --check-prefix=USAGE
// USAGE: apistamp: error: explain needs one <source>:<line>, or --name <qualified name>
// USAGE: exit code: 2

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: methods
    where: method
  - id: ops
    namespace: vision::ops
  - id: everything
    namespace: "**"

//--- a.cpp
#include "c10/util/Logging.h"
namespace vision {
namespace ops {
int nms(int x) { return x; }
namespace detail { static int kernel() { return 1; } }
} // namespace ops
struct Reader {
  Reader() { C10_LOG_API_USAGE_ONCE("vision.Reader"); }
};
} // namespace vision
