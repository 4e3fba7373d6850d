#define BOOST_TEST_MODULE meta
#include <boost/test/unit_test.hpp>
