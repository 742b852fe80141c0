#pragma once
// `bevenv doctor`: add_doctor_commands() is declared with the other registrations in
// commands.hpp, which main.cpp includes.
#include "commands.hpp"
